"""Errors: each model's correlation with its own tokenizer (one model's errors under the others on demand), error
rate by number of pieces, and the worst-split mislabelled words; a model directory of one's own predicts the
dataset here."""

import streamlit as st

from analysis_app.components import attribution, mislabels, model_choice, sidebar

selection = sidebar.render("errors")
st.title("Errors")
model_choice.render(selection)  # may add a model and its tokenizer to the selection, then rerun
mislabels.render(selection)
attribution.render(selection)
