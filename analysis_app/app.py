"""tokstudy analysis app: page configuration and navigation only.

Run: ``streamlit run analysis_app/server.py -- --results results/demo --allow-dir /data`` (what
`make app` runs: this script, with the server computing each page's default view as it starts),
or ``streamlit run analysis_app/app.py ...`` (the same app; the computing starts with the first
visit). Options: ``analysis_app/services/settings.py``. Server settings (127.0.0.1 only, no usage
statistics, no "Deploy" button) are in ``analysis_app/.streamlit/config.toml``, which Streamlit reads beside
the script it runs, from any folder.
"""

import sys
from pathlib import Path

import streamlit as st

# `streamlit run analysis_app/app.py` puts analysis_app/ (not the checkout) on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis_app.components import cache, preload  # noqa: E402 (needs the checkout on sys.path, above)
from analysis_app.services import settings  # needs the checkout on sys.path (above)
from analysis_app.services.background import work

st.set_page_config(page_title="tokstudy", page_icon=":material/splitscreen:", layout="wide")
pages = st.navigation(
    [
        st.Page("views/explorer.py", title="Segmentation explorer", icon=":material/search:", default=True),
        st.Page("views/statistics.py", title="Statistics (Table 4)", icon=":material/bar_chart:"),
        st.Page("views/errors.py", title="Errors", icon=":material/error:"),
        st.Page("views/languages.py", title="Languages", icon=":material/language:"),
        st.Page("views/shredded.py", title="Shredded words", icon=":material/content_cut:"),
        st.Page("views/morph.py", title="Morpheme boundaries", icon=":material/call_split:"),
    ]
)
with work().page_run(pages.url_path):  # the server's preparation pauses while a page is drawn
    pages.run()
    preload.render()  # a session's first run: the browser loads the chart and table code (hidden)
work().start(settings.parse_settings(), lambda: cache)  # no-op under server.py (started with the server)
