"""Slow parts of a page computed beside it, so the rest of the page is drawn without waiting for them.

A page asks :func:`submit` for a cached function (:mod:`analysis_app.services.cache`) and its
arguments; one worker thread calls it once no page is being drawn (so the page that asked is drawn
first, on both cores), which fills the function's Streamlit cache (the one owner of the value: the
job, a ``concurrent.futures.Future``, keeps no copy of it). While the job runs the page draws a
placeholder that polls (``components/pending.py``); once it is done the page calls the cached
function itself and finds the value in the cache. The server's preparation
(:mod:`analysis_app.services.prewarm`) submits the same jobs, so a value is computed once whichever
asks first.

There is one job per (function, arguments) for the process: a second :func:`submit` of the same pair
gets the same job, running or done. A job that failed stays done: the page's own call then meets the
error and reports it with its own message. If the cache has dropped a value since (an evicted entry,
a cleared cache), the page's call computes it again: correctness never depends on this module.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

THREAD = "tokstudy-background"

_LOCK = threading.Lock()
_JOBS: dict[tuple, Future] = {}
_POOL: ThreadPoolExecutor | None = None


class _NotOurThread(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext" warning for cached calls made by the worker."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.threadName.startswith(THREAD)


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_NotOurThread())
        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix=THREAD)
    return _POOL


def _call(fn, args: tuple) -> None:
    import warnings

    from analysis_app.services.pageruns import wait_for_pages

    wait_for_pages()  # after the page that asked has been drawn: the two do not share the cores
    with warnings.catch_warnings():  # the page shows its own warnings when it reads the value
        warnings.simplefilter("ignore")
        fn(*args)


def _key(fn, args: tuple) -> tuple:
    return (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)), args)


def submit(fn, *args) -> Future:
    """The job computing ``fn(*args)`` (started now unless it is running or has succeeded)."""
    key = _key(fn, args)
    with _LOCK:
        job = _JOBS.get(key)
        if job is None:
            job = _JOBS[key] = _pool().submit(_call, fn, args)
    return job


def done(fn, *args) -> bool:
    """Whether a job for ``fn(*args)`` has finished (successfully or not); False if none was submitted."""
    with _LOCK:
        job = _JOBS.get(_key(fn, args))
    return job is not None and job.done()


def wait_all(timeout: float | None = None) -> None:
    """Wait for every submitted job (tests: then a rerun draws what they computed)."""
    with _LOCK:
        jobs = list(_JOBS.values())
    for job in jobs:
        try:
            job.result(timeout)
        except Exception:  # the page's own call reports it
            pass


def forget() -> None:
    """Forget every finished job (tests, after clearing Streamlit's caches)."""
    with _LOCK:
        for key in [k for k, j in _JOBS.items() if j.done()]:
            del _JOBS[key]
