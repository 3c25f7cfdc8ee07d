"""Statistics: Table 4 (NE vs non-NE additional segmentation) by entity type, position and language, with CIs."""

import streamlit as st

from analysis_app.components import sidebar, statistics

selection = sidebar.render("statistics")
st.title("Statistics")
statistics.render(selection)
