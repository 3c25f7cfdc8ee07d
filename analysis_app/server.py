"""The app as a server: ``streamlit run analysis_app/server.py -- --results results/demo`` (what `make app` runs).

The same app as ``analysis_app/app.py`` (the page script, which ``streamlit run`` can also start
directly), plus a server lifespan that starts computing every page's default view as the
server starts (:meth:`analysis_app.services.background.BackgroundWork.start`), so a newcomer's first visit of a page
does not wait for work that could be done before it. Options after ``--`` are the app's
(``analysis_app/services/settings.py``); ``--server.port`` etc. before it are Streamlit's.

It listens on 127.0.0.1 and sends no usage statistics wherever it is started from: those settings are in
``analysis_app/.streamlit/config.toml``, the config file Streamlit reads beside the script it runs (whatever
the current folder; flags such as ``--server.address 0.0.0.0`` still override it). A Streamlit that does not
read that file would listen on every interface: :func:`refuse_streamlit_defaults` stops the server then,
before it answers anyone.
"""

import contextlib
import os
import sys
from pathlib import Path

import streamlit as st
from streamlit import config as st_config

# `streamlit run analysis_app/server.py` puts analysis_app/ (not the checkout) on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis_app.services.background import work  # noqa: E402 (needs the checkout on sys.path, above)
from analysis_app.services.settings import parse_settings  # noqa: E402

#: the settings that must not be left at Streamlit's defaults, with what the default does
GUARDED = {"server.address": "listens on every network interface", "browser.gatherUsageStats": "sends usage statistics"}


def refuse_streamlit_defaults(argv0: str) -> None:
    """Exit (status 2, one line on stderr) when ``streamlit run`` started this file with Streamlit's own default
    for a :data:`GUARDED` setting: ``.streamlit/config.toml`` beside it was not read, and no flag, variable or
    other config file set it. Runs as uvicorn imports the app, before the first request is answered. Nothing
    is checked when the module is imported otherwise (tests)."""
    if os.path.abspath(argv0) != os.path.abspath(__file__):
        return
    unset = [name for name in GUARDED if not st_config.is_manually_set(name)]
    if unset:
        defaults = "; ".join(f"{name} left at Streamlit's default, which {GUARDED[name]}" for name in unset)
        print(
            f"analysis_app: not starting: {defaults}: {Path(__file__).with_name('.streamlit') / 'config.toml'} "
            "was not read (a Streamlit without script-level config files?). Pass --server.address 127.0.0.1 "
            "--browser.gatherUsageStats false (or --server.address 0.0.0.0 to serve the network on purpose).",
            file=sys.stderr,
        )
        raise SystemExit(2)


refuse_streamlit_defaults(sys.argv[0])


def _pages_cache():
    """The pages' cached calls, imported by the preparation's thread, as the first page does: after
    Streamlit's runtime has started, and not holding up the server's start."""
    from analysis_app.components import cache  # deferred: the pages' modules, after Streamlit's runtime started

    return cache


@contextlib.asynccontextmanager
async def lifespan(app):
    """``st.App`` lifespan: start preparing as the server starts; nothing to tear down."""
    work().start(parse_settings(), _pages_cache)
    yield


app = st.App(Path(__file__).with_name("app.py"), lifespan=lifespan)
