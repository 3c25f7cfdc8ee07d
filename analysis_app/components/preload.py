"""The browser code of charts and tables, loaded with the first page a session opens.

Streamlit's frontend loads the code that draws a Vega-Lite chart and a data grid the first time a
page shows one. On two loaded cores that was about 0.65 s of the first click on Statistics, Errors or
Languages (the browser, after the script run had ended): the same pages took 0.5-0.6 s once
another chart page had been drawn (``benchmarks/results/app.md``). The first script run of a session
therefore ends with an empty chart and an empty table in a hidden container (``display: none``), so
that code is loaded while the newcomer reads the first page; later runs leave them out (the code
stays loaded). Owns :data:`KEYS`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

#: set once the hidden elements were sent to this session; also the hidden container's key.
DONE = "ts_preload_done"
CONTAINER = "ts_preload"
KEYS = (DONE,)


def render() -> None:
    """On a session's first script run: the hidden empty chart and table (nothing on later runs)."""
    if st.session_state.get(DONE):
        return
    st.session_state[DONE] = True

    with st.container(key=CONTAINER):
        st.html(f"<style>.st-key-{CONTAINER} {{display: none !important}}</style>")
        empty = pd.DataFrame({"x": pd.Series([], dtype="float64")})
        st.dataframe(empty)
        spec = {"mark": {"type": "point"}, "encoding": {"x": {"field": "x", "type": "quantitative"}}}
        st.vega_lite_chart(empty, spec)
