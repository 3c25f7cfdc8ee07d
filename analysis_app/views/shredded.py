"""Shredded words: the frequent words each tokenizer splits into K+ pieces, side by side, each opening its sentences."""

import streamlit as st

from analysis_app.components import shredded, sidebar

selection = sidebar.render("shredded")
st.title("Shredded words")
shredded.render(selection)
