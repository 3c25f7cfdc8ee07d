"""Segmentation explorer: each word's pieces under each tokenizer, gold labels, predictions (Table 3, live)."""

import streamlit as st

from analysis_app.components import explorer, workspace

explorer.apply_link()
selection = workspace.sidebar("explorer")
st.title("Segmentation explorer")
explorer.render(selection)
