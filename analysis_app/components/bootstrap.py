"""Bootstrap settings widget shared by the statistics pages (owns :data:`KEYS`)."""

from __future__ import annotations

import streamlit as st

from analysis_app.services import defaults

RESAMPLES, SEED = "ts_boot_resamples", "ts_boot_seed"
KEYS = (RESAMPLES, SEED)


def settings(where=None) -> tuple[int, int]:
    """(resamples, seed) chosen in an expander; 0 resamples = no intervals."""
    where = where or st
    with where.expander("Confidence intervals (sentence bootstrap)"):
        n = st.select_slider(
            "Resamples",
            options=[0, 100, 200, 500, 1000, 2000],
            value=st.session_state.get(RESAMPLES, defaults.RESAMPLES),
            key=RESAMPLES + "_w",
        )
        seed = st.number_input(
            "Seed", min_value=0, value=st.session_state.get(SEED, defaults.SEED), step=1, key=SEED + "_w"
        )
    st.session_state[RESAMPLES], st.session_state[SEED] = int(n), int(seed)
    return int(n), int(seed)
