"""Languages: fertility, continued words and parity across languages on parallel text."""

import streamlit as st

from analysis_app.components import languages, sidebar

selection = sidebar.render("languages")
st.title("Languages")
languages.render(selection)
