"""The app as a server: ``streamlit run analysis_app/server.py -- --results results/demo`` (what `make app` runs).

The same app as ``analysis_app/app.py`` (the page script, which ``streamlit run`` can also start
directly), plus a server lifespan that starts computing every page's default view as the
server starts (:meth:`analysis_app.services.background.BackgroundWork.start`), so a newcomer's first visit of a page
does not wait for work that could be done before it. Options after ``--`` are the app's
(``analysis_app/services/settings.py``); ``--server.port`` etc. before it are Streamlit's.
"""

import contextlib
import sys
from pathlib import Path

import streamlit as st

# `streamlit run analysis_app/server.py` puts analysis_app/ (not the checkout) on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis_app.services.background import work  # noqa: E402 (needs the checkout on sys.path, above)
from analysis_app.services.settings import parse_settings  # noqa: E402


def _pages_cache():
    """The pages' cached calls, imported by the preparation's thread, as the first page does: after
    Streamlit's runtime has started, and not holding up the server's start."""
    from analysis_app.components import cache

    return cache


@contextlib.asynccontextmanager
async def lifespan(app):
    """``st.App`` lifespan: start preparing as the server starts; nothing to tear down."""
    work().start(parse_settings(), _pages_cache)
    yield


app = st.App(Path(__file__).with_name("app.py"), lifespan=lifespan)
