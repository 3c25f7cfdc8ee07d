"""Segmentation explorer: each word's pieces under each tokenizer, gold labels, predictions (Table 3, live)."""

import streamlit as st

from analysis_app.components import explorer, sidebar

explorer.apply_link()
selection = sidebar.render("explorer")
st.title("Segmentation explorer")
explorer.render(selection)
