"""Errors: each model's correlation with its own tokenizer (one model's errors under the others on demand), error
rate by number of pieces, and the worst-split mislabelled words."""

import streamlit as st

from analysis_app.components import attribution, mislabels, sidebar

selection = sidebar.render("errors")
st.title("Errors")
mislabels.render(selection)
attribution.render(selection)
