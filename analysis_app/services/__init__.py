"""Plain-Python services over the tokstudy API (no Streamlit except ``cache.py``)."""
