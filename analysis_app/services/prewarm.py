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
#: script runs in progress (:func:`page_run`); preparation waits between steps while any is.
_running = 0
_idle = threading.Condition()
#: the longest a step waits for page runs to end (a page left running must not stop preparation).
MAX_WAIT = 10.0
#: set when the first page run of this process has ended; preparation beyond the start page's inputs
#: waits for it (at most :data:`FIRST_PAGE_WAIT` s), so a newcomer's browser, loading and drawing the
#: first page, does not share the two cores with work for pages not yet visited.
_first_page = threading.Event()
FIRST_PAGE_WAIT = 5.0
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


@contextlib.contextmanager
def page_run():
    """Around a script run (``app.py``): preparation pauses between its steps while a page is drawn,
    so a newcomer's first page does not share the two cores with work for pages not yet visited."""
    global _running
    with _idle:
        _running += 1
    verbose = os.environ.get(ENV) == "verbose"
    if verbose:
        print(f"page run starts at {time.time():.3f}", flush=True)
    try:
        yield
    finally:
        if verbose:
            print(f"page run ends at {time.time():.3f}", flush=True)
        with _idle:
            _running -= 1
            _idle.notify_all()
        _first_page.set()


def _wait_for_pages() -> None:
    with _idle:
        _idle.wait_for(lambda: _running == 0, timeout=MAX_WAIT)


def _step(name: str, fn, *args) -> object:
    _wait_for_pages()
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


def prewarm(settings: AppSettings, *, wait_for_first_page: bool = True) -> dict[str, float]:
    """Compute the default view of every page; returns :data:`timings`.

    The start page's inputs first (tokenizers, dataset, predictions); then, once the first page
    run has ended (``wait_for_first_page``), two threads, as the machine has two cores: this one
    goes on in page order (Statistics, then the imports and fits of Errors, mostly pure Python
    under the GIL), the Languages page's segmentation of the parallel text (SentencePiece
    releases the GIL while it encodes) runs beside it.
    """
    from analysis_app.services import cache, defaults
    from analysis_app.services.sources import initial_sources, predictions_for

    t_start = time.perf_counter()
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
    if wait_for_first_page:
        t0 = time.perf_counter()
        _first_page.wait(FIRST_PAGE_WAIT)
        timings["waiting for the first page"] = time.perf_counter() - t0
    languages = threading.Thread(target=_languages, args=(settings, toks), name=_THREAD, daemon=True)
    if toks:
        languages.start()
    if ds is not None and toks:
        _step("table", cache.table_for, (ds,), toks)
        _step("table 4", cache.table4, (ds,), toks, n, seed)
        _step("grouped", cache.grouped, (ds,), toks, defaults.GROUP_BY, defaults.SUBSET, n, seed)
        _step("summary", cache.summary, (ds,), toks, n, seed)
    for m in MODULES:
        _step(f"import {m}", importlib.import_module, m)
    if ds is not None and toks and preds:
        p = preds[0]
        _step("aligned", cache.aligned, ds, toks, p)
        _step("correlation", cache.correlation, ds, toks, p, n, seed)
        _step("mislabelled", cache.mislabelled, ds, toks, p, toks[0].name, defaults.MISLABELLED_SHOWN)
        _step("mislabelled (all)", cache.mislabelled, ds, toks, p, toks[0].name, None)
        _step("attribution", cache.attribution, ds, toks, preds)
    if languages.is_alive():
        languages.join()
    # one line in the terminal `make app` runs in (and what the benchmark waits for)
    print(f"tokstudy: every page's default view computed ({time.perf_counter() - t_start:.1f} s)", flush=True)
    return timings


def _languages(settings: AppSettings, toks: tuple) -> None:
    """The Languages page's default view: the parallel text's parity, fertility and continued words."""
    from analysis_app.services import cache, defaults
    from analysis_app.services.paths import confine_path

    n, seed = defaults.RESAMPLES, defaults.SEED
    directory = _step("parallel folder", lambda: str(confine_path(defaults.parallel_dir(), settings.allow_dirs)))
    paras = _step("parallel text", cache.parallel, directory) if directory else None
    if paras:
        langs = tuple(defaults.default_languages(sorted(paras)))
        _step("parity", cache.parity, directory, langs, toks, defaults.reference(langs), n, seed)
        _step("continued", cache.continued, directory, langs, toks, n, seed)
