"""tokstudy's Streamlit analysis app (``streamlit run analysis_app/app.py``).

Layers: ``app.py`` (page config and navigation), ``pages/`` (thin pages),
``components/`` (widgets that own their session-state keys) and ``services/``
(plain Python over the tokstudy API; only ``services/cache.py`` touches Streamlit).
"""
