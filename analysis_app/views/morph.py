"""Morpheme boundaries: MorphScore and boundary precision / recall / F1 of the tokenizers on a gold file."""

import streamlit as st

from analysis_app.components import morph, sidebar

selection = sidebar.render("morph")
st.title("Morpheme boundaries")
morph.render(selection)
