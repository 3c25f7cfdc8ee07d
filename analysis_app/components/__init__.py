"""Streamlit widgets; each module owns the session-state keys it names in ``KEYS``."""
