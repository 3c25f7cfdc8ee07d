"""Errors: error rate by number of pieces, the correlation with its CI, and the worst-split mislabelled words."""

import streamlit as st

from analysis_app.components import attribution, mislabels, sidebar

selection = sidebar.render("errors")
st.title("Errors")
mislabels.render(selection)
attribution.render(selection)
