"""The app's background work: what is computed beside the pages, paused while a page is drawn.

Three parts, one object (:class:`BackgroundWork`, one per server process: :func:`work`):

* **Page runs.** ``app.py`` wraps every script run in :meth:`~BackgroundWork.page_run`; background work
  waits between its steps while a page is being drawn (:meth:`~BackgroundWork.wait_for_pages`), and the
  server's preparation takes the steps of the page last asked for (:meth:`~BackgroundWork.requested`)
  first.
* **Jobs.** A page asks :meth:`~BackgroundWork.submit` for a cached function
  (:mod:`analysis_app.components.cache`) and its arguments; one worker thread calls it once no page is
  being drawn, which fills the function's Streamlit cache (the one owner of the value: the job, a
  ``concurrent.futures.Future``, keeps no copy of it). Meanwhile the page draws a placeholder that polls
  (``components/pending.py``); once the job is done the page calls the cached function itself and finds
  the value in the cache. There is one job per (function, arguments): a second submit of the same pair
  gets the same job, running or done. A job that failed stays done: the page's own call then meets the
  error and reports it with its own message.
* **The server's preparation.** Every page opens on the same defaults (:mod:`analysis_app.services.defaults`),
  so what a newcomer's first visit shows does not depend on anything the user does: imports of
  ``scipy.stats`` / ``statsmodels``, the segmentation table of the selection, its bootstraps, the parallel
  text's segmentation. :meth:`~BackgroundWork.prewarm` computes it through the cached calls the pages make
  (handed in as ``cache``: this module never imports Streamlit), so a page reads the same cache entries
  afterwards; :meth:`~BackgroundWork.start` runs it in a daemon thread as the server starts (the lifespan
  in ``analysis_app/server.py``), so the server answers at once. The work is one queue of steps, each
  tagged with the page that shows it (:func:`plan`); the Errors page's odds ratios go through
  :meth:`~BackgroundWork.submit`, the page's own way to compute them, so they are computed once whichever
  asks first.

Correctness never depends on this module: a page that asks for a value still being computed waits for that
computation (Streamlit's per-key compute lock; Python's import lock for modules) and never sees half a
result; a value the cache has dropped since is computed again by the page; a failure here is left for the
page to report. ``TOKSTUDY_APP_PREWARM=0`` switches the preparation off (each page then computes on its first
visit), ``verbose`` prints what each step took; ``TOKSTUDY_APP_TIMING=1`` prints when each script run starts
and ends.
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
from concurrent.futures import Future, ThreadPoolExecutor
from types import ModuleType

from analysis_app.services import defaults
from analysis_app.services.paths import confine_path
from analysis_app.services.settings import AppSettings

PREWARM_ENV = "TOKSTUDY_APP_PREWARM"
#: set to print when each script run starts and ends (as ``TOKSTUDY_APP_PREWARM=verbose`` does), with or
#: without the server's preparation: to tell the server's part of a click from the browser's.
TIMING_ENV = "TOKSTUDY_APP_TIMING"
#: modules the statistics pages import (imports run before any data is read); ``statsmodels`` and
#: ``scipy.stats`` come with the odds ratios, the last step, computed as the page would.
MODULES = (
    "pandas",
    "tokstudy.analysis.table",
    "tokstudy.analysis.stats",
    "tokstudy.analysis.model_errors.correlation",
    "tokstudy.analysis.stats.parity",
)
#: the longest a step waits for page runs to end (a page left running must not stop the work).
MAX_WAIT = 10.0
#: seconds after a script run has ended during which background work still waits: the browser draws
#: what the run sent (charts and tables, several tenths of a second on a page's first visit) and, on
#: two cores, a step started at once took a core from it (the click was slower by about as much).
DRAW_GRACE_S = 0.6
#: the longest preparation beyond the start page's inputs waits for the first page run to end, so a
#: newcomer's browser, loading and drawing the first page, does not share the two cores with it.
FIRST_PAGE_WAIT = 5.0
#: the name (prefix) of every thread this module starts: the preparation's and the jobs' worker (the
#: pages' cache, :mod:`analysis_app.components.cache`, silences Streamlit's warning about their calls).
THREAD = "tokstudy-background"

_LOG = logging.getLogger(__name__)


def enabled(environ=None) -> bool:
    """Whether the server's preparation runs (``TOKSTUDY_APP_PREWARM`` not ``0``, ``false`` or ``no``)."""
    return (os.environ if environ is None else environ).get(PREWARM_ENV, "1") not in ("0", "false", "no")


def timing_on() -> bool:
    """Whether script runs and preparation steps print their times (``TOKSTUDY_APP_TIMING`` or
    ``TOKSTUDY_APP_PREWARM=verbose``)."""
    return os.environ.get(PREWARM_ENV) == "verbose" or os.environ.get(TIMING_ENV, "") not in ("", "0")


#: a step of the preparation's queue: (page url path, name, function, arguments).
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


class BackgroundWork:
    """The state of the app's background work: page runs in progress, jobs, the preparation's timings.

    One per server process (:func:`work`); tests make their own to watch one part alone.
    """

    def __init__(self) -> None:
        self._idle = threading.Condition()  # guards the page-run fields below; notified when a run ends
        self._running = 0  # script runs in progress
        self._last_end = float("-inf")  # time.monotonic() when the latest script run ended
        self._requested: str | None = None  # the page (url path, "" for the start page) of the latest run
        #: set when the first page run of this process has ended.
        self.first_page = threading.Event()
        self._lock = threading.Lock()  # guards the jobs and the preparation's start
        self._jobs: dict[tuple, Future] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._started = False
        #: what each preparation step took (seconds), for the benchmark and the log.
        self.timings: dict[str, float] = {}

    # -- page runs ---------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def page_run(self, page: str | None = None):
        """Around a script run of ``page`` (its ``url_path``): background work pauses between its steps."""
        with self._idle:
            self._running += 1
            if page is not None:
                self._requested = page
        verbose = timing_on()
        if verbose:
            print(f"page run ({page}) starts at {time.time():.3f}", flush=True)
        try:
            yield
        finally:
            if verbose:
                print(f"page run ({page}) ends at {time.time():.3f}", flush=True)
            with self._idle:
                self._running -= 1
                self._last_end = time.monotonic()
                self._idle.notify_all()
            self.first_page.set()

    def wait_for_pages(self, timeout: float = MAX_WAIT, grace: float | None = None) -> None:
        """Return once no page is being drawn: no script run in progress and none ended in the last
        ``grace`` seconds (:data:`DRAW_GRACE_S`), or after ``timeout`` seconds."""
        grace = DRAW_GRACE_S if grace is None else grace
        deadline = time.monotonic() + timeout
        with self._idle:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not self._idle.wait_for(lambda: self._running == 0, timeout=left):
                    return
                drawing = self._last_end + grace - time.monotonic()
                if drawing <= 0:
                    return
                self._idle.wait(min(drawing, max(deadline - time.monotonic(), 0.0)))  # a new run wakes it early

    def requested(self) -> str | None:
        """The page of the latest script run (``None`` before any)."""
        return self._requested

    # -- jobs --------------------------------------------------------------------------------------------

    def submit(self, fn, *args) -> Future:
        """The job computing ``fn(*args)`` (started now unless it is running or has succeeded)."""
        key = _job_key(fn, args)
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{THREAD}-job")
                job = self._jobs[key] = self._pool.submit(self._call, fn, args)
        return job

    def done(self, fn, *args) -> bool:
        """Whether a job for ``fn(*args)`` has finished (successfully or not); False if none was submitted."""
        with self._lock:
            job = self._jobs.get(_job_key(fn, args))
        return job is not None and job.done()

    def _call(self, fn, args: tuple) -> None:
        self.wait_for_pages()  # after the page that asked has been drawn: the two do not share the cores
        with warnings.catch_warnings():  # the page shows its own warnings when it reads the value
            warnings.simplefilter("ignore")
            fn(*args)

    # -- the server's preparation ------------------------------------------------------------------------

    def start(self, settings: AppSettings, load_cache: Callable[[], ModuleType]) -> bool:
        """Start :meth:`prewarm` in a daemon thread (once per process); returns whether this call started it.

        ``load_cache`` returns the pages' cached calls; the thread calls it, so that their imports (about a
        second) do not delay the server's start.
        """
        with self._lock:
            if self._started or not enabled():
                return False
            self._started = True

        def prewarm() -> None:
            self.prewarm(settings, load_cache())

        threading.Thread(target=prewarm, name=f"{THREAD}-prewarm", daemon=True).start()
        return True

    def prewarm(self, settings: AppSettings, cache: ModuleType, *, wait_for_first_page: bool = True) -> dict:
        """Compute the default view of every page through ``cache`` (the pages' cached calls,
        :mod:`analysis_app.components.cache`); returns :attr:`timings`.

        The start page's inputs first (tokenizers, dataset, predictions); then, once the first page
        run has ended (``wait_for_first_page``), the queue of :func:`plan`, the page last asked for
        first (:meth:`run_queue`).
        """
        # deferred: the sources' modules, in the preparation thread, not at the server's start
        from analysis_app.services.sources import initial_sources, predictions_for

        t_start = time.perf_counter()
        srcs = initial_sources(settings.results)
        names = defaults.tokenizer_names([t.name for t in srcs.tokenizers])
        toks = tuple(srcs.tokenizer(n) for n in names)
        ds = srcs.datasets[0] if srcs.datasets else None
        preds = tuple(predictions_for(ds, srcs.predictions)) if ds else ()
        # the start page (Segmentation explorer): tokenizers, the dataset, each model's predictions
        for t in toks:
            self.step(f"tokenizer {t.name}", cache.segmenter, t)
            self.step(f"byte level {t.name}", cache.byte_level, t)
        if ds is not None:
            self.step("dataset", cache.dataset, ds)
            for p in preds:
                self.step(f"predictions {p.key}", cache.sentence_predictions, ds, p)
        if wait_for_first_page:
            t0 = time.perf_counter()
            self.first_page.wait(FIRST_PAGE_WAIT)
            self.timings["waiting for the first page"] = time.perf_counter() - t0
        by_language = _language_default(srcs, ds)
        steps = plan(
            settings, toks, ds, preds, cache, submit=self.submit, by_language=by_language, loaded=srcs.tokenizers
        )
        self.run_queue(steps)
        # one line in the terminal `make app` runs in (and what the benchmark waits for)
        print(f"tokstudy: every page's default view computed ({time.perf_counter() - t_start:.1f} s)", flush=True)
        return self.timings

    def run_queue(self, queue: list[Step]) -> None:
        """Run every step, the page last asked for (:meth:`requested`) first."""
        while queue:
            _page, name, fn, args = next_step(queue, self.requested())
            self.step(name, fn, *args)

    def step(self, name: str, fn, *args) -> object:
        """``fn(*args)`` once no page is being drawn, timed under ``name``; ``None`` if it fails."""
        self.wait_for_pages()
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():  # the page shows its own warnings when it runs
                warnings.simplefilter("ignore")
                return fn(*args)
        except Exception as exc:  # the page meets the same error and reports it to the user
            _LOG.info("prewarm %s: %s: %s", name, type(exc).__name__, exc)
            return None
        finally:
            self.timings[name] = time.perf_counter() - t0
            if timing_on():
                print(f"prewarm {name}: {self.timings[name]:.2f} s, ended at {time.time():.3f}", flush=True)


def _job_key(fn, args: tuple) -> tuple:
    return (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)), args)


_WORK = BackgroundWork()  # made at import, which Python does once per process


def work() -> BackgroundWork:
    """The server process's background work (the same object for every page, session and thread)."""
    return _WORK


def _language_default(srcs, ds) -> tuple:
    """The datasets of the Languages page's Table 4 per language at start (:func:`defaults.language_sets`)."""
    # deferred: numpy, pandas and the analysis package, in the preparation thread, not at the server's start
    from analysis_app.services.languages import expand_sets, language_sets

    sets = language_sets(srcs)
    return tuple(srcs.dataset(k) for k in expand_sets(sets, defaults.language_sets(ds, sets)))


def plan(
    settings: AppSettings,
    toks: tuple,
    ds,
    preds: tuple,
    cache: ModuleType,
    *,
    submit,
    by_language: tuple = (),
    loaded: tuple = (),
) -> list[Step]:
    """The steps of every page's default view beyond the start page, in page order, as calls of ``cache``
    (the odds ratios through ``submit``, as the Errors page computes them); ``by_language``: the datasets of
    the Languages page's Table 4 per language; ``loaded``: every loaded tokenizer (a model's own tokenizer
    is looked for among them; default ``toks``)."""
    n, seed = defaults.RESAMPLES, defaults.SEED
    steps: list[Step] = [("", f"import {m}", importlib.import_module, (m,)) for m in MODULES]
    if ds is not None and toks:
        steps += [
            ("statistics", "table", cache.table_for, ((ds,), toks)),
            ("statistics", "table 4", cache.table4, ((ds,), toks, n, seed)),
            ("statistics", "grouped", cache.grouped, ((ds,), toks, defaults.GROUP_BY, defaults.SUBSET, n, seed)),
            ("statistics", "summary", cache.summary, ((ds,), toks, n, seed)),
        ]
    if by_language and toks:
        steps.append(("languages", "table 4 per language", cache.language_table, (by_language, toks, n, seed)))
    if toks:
        steps += _languages(settings, toks, n, seed, cache)
    if ds is not None and toks and preds:
        p = preds[0]
        steps += [
            # the p-values' module (analysis.model_errors.correlation imports it when first used): an errors step,
            # not among MODULES, so that a click on another page does not wait behind its import
            ("errors", "import scipy.special", importlib.import_module, ("scipy.special",)),
            ("errors", "table", cache.table_for, ((ds,), toks)),
            ("errors", "aligned", cache.aligned, (ds, toks, p)),
            ("errors", "paired", cache.paired, (ds, toks, preds, loaded or toks, n, seed)),
            ("errors", "correlation", cache.correlation, (ds, toks, p, n, seed)),
            (
                "errors",
                "mislabelled",
                _mislabelled,
                (cache, ds, toks, preds, loaded or toks, defaults.MISLABELLED_SHOWN),
            ),
            ("errors", "mislabelled (all)", _mislabelled, (cache, ds, toks, preds, loaded or toks, None)),
            ("errors", "attribution", lambda *a: submit(cache.attribution, *a).result(), (ds, toks, preds)),
        ]
    return steps


def _mislabelled(cache: ModuleType, ds, toks: tuple, preds: tuple, loaded: tuple, limit: int | None):
    """The first model's mislabelled words as the Errors page shows them at start: under its own tokenizer
    where it is selected (its pairing, found as the page finds it), else the first selected."""
    own = cache.pairings(preds, loaded)[preds[0].key].tokenizer
    return cache.mislabelled(ds, toks, preds[0], defaults.pieces_under([t.name for t in toks], own), limit)


def _languages(settings: AppSettings, toks: tuple, n: int, seed: int, cache: ModuleType) -> list[Step]:
    """The Languages page's default view: the parallel text segmented once, then its parity, fertility
    and continued words (nothing when the folder cannot be read: the page reports why)."""
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
