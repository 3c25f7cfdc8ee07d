"""Languages: fertility, continued words and parity across languages on parallel text."""

import streamlit as st

from analysis_app.components import languages, workspace

selection = workspace.sidebar("languages")
st.title("Languages")
languages.render(selection)
