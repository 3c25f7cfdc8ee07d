"""tokstudy's Streamlit analysis app (``streamlit run analysis_app/server.py``, what `make app` runs).

Layers: ``server.py`` (``app.py`` plus preparing every page's default view as the server starts),
``app.py`` (page config and navigation), ``views/`` (thin pages; not ``pages/``: Streamlit runs a
``pages/`` folder's scripts as pages of their own, so a link to ``/statistics`` showed that page
without ``app.py``'s navigation), ``components/`` (widgets that
own their session-state keys, and ``components/cache.py``, the Streamlit caches around the services) and
``services/`` (plain Python over the tokstudy API, never Streamlit; ``services/background.py`` runs the
work done beside the pages, the cached calls handed to it).
"""
