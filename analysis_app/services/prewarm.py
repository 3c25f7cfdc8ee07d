"""Compute, when the server starts, what every page shows a newcomer, so a first visit finds it done.

A cold page used to wait for ``scipy.stats`` / ``statsmodels`` to import, for the segmentation
table of the selection (3 tokenizers x 3,453 sentences), its bootstraps and the parallel text's
segmentation: seconds of work that does not depend on anything the user does, because every page
opens on the same defaults (:mod:`analysis_app.services.defaults`). :func:`prewarm` does that work
through the very cached functions the pages call (:mod:`analysis_app.services.cache`), so a page
reads the same cache entries afterwards; :func:`start` runs it in a daemon thread as the server
starts (:func:`lifespan`, used by ``analysis_app/server.py``), so the server answers at once.

The work is one queue of steps, each tagged with the page that shows it, run by one thread: while
a page is being drawn the queue pauses between steps (:mod:`analysis_app.services.pageruns`), and
when it goes on it takes the steps of the page last asked for first, so a newcomer who opens a page
before its preparation has started does not wait behind other pages' work. The Errors page's
odds ratios go through :mod:`analysis_app.services.background`, the page's own way to compute them.

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
from collections.abc import Callable

from analysis_app.services import pageruns
from analysis_app.services.settings import AppSettings

ENV = "TOKSTUDY_APP_PREWARM"
#: modules the statistics pages import (imports run before any data is read); ``statsmodels`` and
#: ``scipy.stats`` come with the odds ratios, the last step, computed as the page would.
MODULES = (
    "pandas",
    "tokstudy.analysis.table",
    "tokstudy.analysis.stats",
    "tokstudy.analysis.correlation",
    "tokstudy.analysis.parity",
)

_LOG = logging.getLogger(__name__)
_started = threading.Event()
#: the longest preparation beyond the start page's inputs waits for the first page run to end, so a
#: newcomer's browser, loading and drawing the first page, does not share the two cores with it.
FIRST_PAGE_WAIT = 5.0
#: what each step took (seconds), for the benchmark and the log.
timings: dict[str, float] = {}
#: ``page_run`` for ``app.py`` (the tracking lives in :mod:`analysis_app.services.pageruns`).
page_run = pageruns.page_run


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
    pageruns.wait_for_pages()
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
        if pageruns.timing_on():
            print(f"prewarm {name}: {timings[name]:.2f} s, ended at {time.time():.3f}", flush=True)


#: a step of the queue: (page url path, name, function, arguments).
Step = tuple[str, str, Callable, tuple]


def next_step(queue: list[Step], page: str | None) -> Step:
    """Take the next step from ``queue``: the first of ``page`` if it has one, else the first.

    >>> q = [("statistics", "table 4", print, ()), ("errors", "aligned", print, ())]
    >>> next_step(q, "errors")[1], [s[1] for s in q]
    ('aligned', ['table 4'])
    >>> next_step(q, None)[1], q
    ('table 4', [])
    """
    for i, step in enumerate(queue):
        if step[0] == page:
            return queue.pop(i)
    return queue.pop(0)


def run_queue(queue: list[Step]) -> None:
    """Run every step, the page last asked for (:func:`pageruns.requested`) first."""
    while queue:
        _page, name, fn, args = next_step(queue, pageruns.requested())
        _step(name, fn, *args)


def plan(settings: AppSettings, toks: tuple, ds, preds: tuple) -> list[Step]:
    """The steps of every page's default view beyond the start page, in page order."""
    from analysis_app.services import background, cache, defaults

    n, seed = defaults.RESAMPLES, defaults.SEED
    steps: list[Step] = [("", f"import {m}", importlib.import_module, (m,)) for m in MODULES]
    if ds is not None and toks:
        steps += [
            ("statistics", "table", cache.table_for, ((ds,), toks)),
            ("statistics", "table 4", cache.table4, ((ds,), toks, n, seed)),
            ("statistics", "grouped", cache.grouped, ((ds,), toks, defaults.GROUP_BY, defaults.SUBSET, n, seed)),
            ("statistics", "summary", cache.summary, ((ds,), toks, n, seed)),
        ]
    if toks:
        steps += _languages(settings, toks, n, seed)
    if ds is not None and toks and preds:
        p = preds[0]
        steps += [
            # the p-values' module (tokstudy.analysis.correlation imports it when first used): an errors step,
            # not among MODULES, so that a click on another page does not wait behind its import
            ("errors", "import scipy.special", importlib.import_module, ("scipy.special",)),
            ("errors", "table", cache.table_for, ((ds,), toks)),
            ("errors", "aligned", cache.aligned, (ds, toks, p)),
            ("errors", "correlation", cache.correlation, (ds, toks, p, n, seed)),
            ("errors", "mislabelled", cache.mislabelled, (ds, toks, p, toks[0].name, defaults.MISLABELLED_SHOWN)),
            ("errors", "mislabelled (all)", cache.mislabelled, (ds, toks, p, toks[0].name, None)),
            ("errors", "attribution", lambda *a: background.submit(cache.attribution, *a).result(), (ds, toks, preds)),
        ]
    return steps


def _languages(settings: AppSettings, toks: tuple, n: int, seed: int) -> list[Step]:
    """The Languages page's default view: the parallel text segmented once, then its parity, fertility
    and continued words (nothing when the folder cannot be read: the page reports why)."""
    from analysis_app.services import cache, defaults
    from analysis_app.services.paths import confine_path

    try:
        directory = str(confine_path(defaults.parallel_dir(), settings.allow_dirs))
        paras = cache.parallel(directory)
    except Exception as exc:  # the page meets the same error and reports it
        _LOG.info("prewarm parallel text: %s: %s", type(exc).__name__, exc)
        return []
    langs = tuple(defaults.default_languages(sorted(paras)))
    segment = [("languages", f"segmenting {t.name}", cache.parallel_segmented_by, (directory, langs, t)) for t in toks]
    return [
        *segment,
        ("languages", "parity", cache.parity, (directory, langs, toks, defaults.reference(langs), n, seed)),
        ("languages", "continued", cache.continued, (directory, langs, toks, n, seed)),
    ]


def prewarm(settings: AppSettings, *, wait_for_first_page: bool = True) -> dict[str, float]:
    """Compute the default view of every page; returns :data:`timings`.

    The start page's inputs first (tokenizers, dataset, predictions); then, once the first page
    run has ended (``wait_for_first_page``), the queue of :func:`plan`, the page last asked for
    first (:func:`run_queue`).
    """
    from analysis_app.services import cache, defaults
    from analysis_app.services.sources import initial_sources, predictions_for

    t_start = time.perf_counter()
    srcs = initial_sources(settings.results)
    names = defaults.tokenizer_names([t.name for t in srcs.tokenizers])
    toks = tuple(srcs.tokenizer(n) for n in names)
    ds = srcs.datasets[0] if srcs.datasets else None
    preds = tuple(predictions_for(ds, srcs.predictions)) if ds else ()
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
        pageruns.first_page.wait(FIRST_PAGE_WAIT)
        timings["waiting for the first page"] = time.perf_counter() - t0
    run_queue(plan(settings, toks, ds, preds))
    # one line in the terminal `make app` runs in (and what the benchmark waits for)
    print(f"tokstudy: every page's default view computed ({time.perf_counter() - t_start:.1f} s)", flush=True)
    return timings
