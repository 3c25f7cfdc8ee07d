"""The app as a server: ``streamlit run analysis_app/server.py -- --results results/demo`` (what `make app` runs).

The same app as ``analysis_app/app.py`` (the page script, which ``streamlit run`` can also start
directly), plus a server lifespan that starts computing every page's default view as the
server starts (:mod:`analysis_app.services.prewarm`), so a newcomer's first visit of a page
does not wait for work that could be done before it. Options after ``--`` are the app's
(``analysis_app/services/settings.py``); ``--server.port`` etc. before it are Streamlit's.
"""

import sys
from pathlib import Path

import streamlit as st

# `streamlit run analysis_app/server.py` puts analysis_app/ (not the checkout) on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis_app.services import prewarm  # noqa: E402 (needs the checkout on sys.path, above)

app = st.App(Path(__file__).with_name("app.py"), lifespan=prewarm.lifespan)
