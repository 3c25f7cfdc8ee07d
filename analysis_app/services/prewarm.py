"""Compute, when the server starts, what every page shows a newcomer, so a first visit finds it done.

A cold page used to wait for ``scipy.stats`` / ``statsmodels`` to import, for the segmentation
table of the selection (3 tokenizers x 3,453 sentences), its bootstraps and the parallel text's
segmentation: seconds of work that does not depend on anything the user does, because every page
opens on the same defaults (:mod:`analysis_app.services.defaults`). :func:`prewarm` does that work
through the very cached functions the pages call (:mod:`analysis_app.services.cache`), so a page
reads the same cache entries afterwards; :func:`start` runs it in a daemon thread as the server
starts (:func:`lifespan`, used by ``analysis_app/server.py``), so the server answers at once.

Correctness does not depend on it: a page that asks for a value still being computed waits for
that computation (Streamlit's per-key compute lock; Python's import lock for modules), it never
sees half a result, and a failure here is left for the page to report with its own message.
Set ``TOKSTUDY_APP_PREWARM=0`` to switch it off (then each page computes on its first visit), or
``verbose`` to print what each step took.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import threading
import time
import warnings

from analysis_app.services.settings import AppSettings

ENV = "TOKSTUDY_APP_PREWARM"
#: modules the statistics pages import, heaviest first (imports run before any data is read).
MODULES = (
    "pandas",
    "scipy.stats",
    "statsmodels.discrete.discrete_model",
    "tokstudy.analysis.table",
    "tokstudy.analysis.stats",
    "tokstudy.analysis.correlation",
    "tokstudy.analysis.attribution",
    "tokstudy.analysis.parity",
    "tokstudy.report.attribution",
)

_LOG = logging.getLogger(__name__)
_started = threading.Event()
#: what each step took (seconds), for the benchmark and the log.
timings: dict[str, float] = {}


def enabled(environ=None) -> bool:
    return (os.environ if environ is None else environ).get(ENV, "1") not in ("0", "false", "no")


_THREAD = "tokstudy-prewarm"


class _NotOurThread(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext" warning for the cached calls made by this thread."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.threadName != _THREAD


def start(settings: AppSettings) -> bool:
    """Start :func:`prewarm` in a daemon thread (once per process); returns whether this call started it."""
    if _started.is_set() or not enabled():
        return False
    _started.set()
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_NotOurThread())
    threading.Thread(target=prewarm, args=(settings,), name=_THREAD, daemon=True).start()
    return True


@contextlib.asynccontextmanager
async def lifespan(app):
    """``st.App`` lifespan: start preparing as the server starts; nothing to tear down."""
    from analysis_app.services.settings import parse_settings

    start(parse_settings())
    yield


def _step(name: str, fn, *args) -> object:
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():  # the page shows its own warnings when it runs
            warnings.simplefilter("ignore")
            return fn(*args)
    except Exception as exc:  # the page meets the same error and reports it to the user
        _LOG.info("prewarm %s: %s: %s", name, type(exc).__name__, exc)
        return None
    finally:
        timings[name] = time.perf_counter() - t0
        if os.environ.get(ENV) == "verbose":
            print(f"prewarm {name}: {timings[name]:.2f} s", flush=True)


def prewarm(settings: AppSettings) -> dict[str, float]:
    """Compute the default view of every page, in the order a newcomer meets them; returns :data:`timings`."""
    from analysis_app.services import cache, defaults
    from analysis_app.services.paths import confine_path
    from analysis_app.services.sources import initial_sources, predictions_for

    srcs = initial_sources(settings.results)
    names = defaults.tokenizer_names([t.name for t in srcs.tokenizers])
    toks = tuple(srcs.tokenizer(n) for n in names)
    ds = srcs.datasets[0] if srcs.datasets else None
    preds = tuple(predictions_for(ds, srcs.predictions)) if ds else ()
    n, seed = defaults.RESAMPLES, defaults.SEED
    # the start page (Segmentation explorer): tokenizers, the dataset, each model's predictions
    for t in toks:
        _step(f"tokenizer {t.name}", cache.segmenter, t)
        _step(f"byte level {t.name}", cache.byte_level, t)
    if ds is not None:
        _step("dataset", cache.dataset, ds)
        for p in preds:
            _step(f"predictions {p.key}", cache.sentence_predictions, ds, p)
    for m in MODULES:
        _step(f"import {m}", importlib.import_module, m)
    _step("chart builder", _warm_charts)
    if ds is not None and toks:
        _step("table", cache.table_for, (ds,), toks)
        _step("table 4", cache.table4, (ds,), toks, n, seed)
        _step("grouped", cache.grouped, (ds,), toks, defaults.GROUP_BY, defaults.SUBSET, n, seed)
        _step("summary", cache.summary, (ds,), toks, n, seed)
        if preds:
            p = preds[0]
            _step("aligned", cache.aligned, ds, toks, p)
            _step("correlation", cache.correlation, ds, toks, p, n, seed)
            _step("mislabelled", cache.mislabelled, ds, toks, p, toks[0].name, defaults.MISLABELLED_SHOWN)
            _step("mislabelled (all)", cache.mislabelled, ds, toks, p, toks[0].name, None)
            _step("attribution", cache.attribution, ds, toks, preds)
    if toks:
        directory = _step("parallel folder", lambda: str(confine_path(defaults.parallel_dir(), settings.allow_dirs)))
        paras = _step("parallel text", cache.parallel, directory) if directory else None
        if paras:
            langs = tuple(defaults.default_languages(sorted(paras)))
            _step("parity", cache.parity, directory, langs, toks, defaults.reference(langs), n, seed)
            _step("continued", cache.continued, directory, langs, toks, n, seed)
    _LOG.info("prewarm done in %.2f s", sum(timings.values()))
    return timings


def _warm_charts() -> None:
    """Import Altair and validate one small chart: its first schema validation loads the Vega-Lite schema."""
    import altair as alt
    import pandas as pd

    alt.Chart(pd.DataFrame({"a": ["x"], "b": [1.0]})).mark_bar().encode(x="a:N", y="b:Q").to_dict()
