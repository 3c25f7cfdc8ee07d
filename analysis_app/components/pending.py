"""A placeholder for a part of a page computed beside it (:mod:`analysis_app.services.background`).

It polls the job every :data:`POLL_S` seconds in a fragment (only the placeholder reruns, not the
page) and reruns the page once the job has finished; the page then draws the value from the cache.
Owns no session-state key.
"""

from __future__ import annotations

import streamlit as st

#: seconds between two looks at the job (each look is a script run: the page is idle in between).
POLL_S = 1.0


def render(job, message: str) -> None:
    """Draw ``message`` until ``job`` (a ``concurrent.futures.Future``) is done, then rerun the page."""

    @st.fragment(run_every=POLL_S)
    def _poll() -> None:
        if job.done():
            st.rerun(scope="app")
        st.info(message, icon=":material/hourglass_top:")

    _poll()
