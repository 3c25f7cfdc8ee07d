"""Which pages are being drawn now: background work (:mod:`~analysis_app.services.prewarm`,
:mod:`~analysis_app.services.background`) waits between its steps while a page's script runs, and
the server's preparation does the page last asked for first.

``app.py`` wraps every script run in :func:`page_run`; the rest only reads.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

#: script runs in progress; background steps wait while any is.
_running = 0
_idle = threading.Condition()
#: the longest a step waits for page runs to end (a page left running must not stop the work).
MAX_WAIT = 10.0
#: set when the first page run of this process has ended.
first_page = threading.Event()
#: set to print when each script run starts and ends (as ``TOKSTUDY_APP_PREWARM=verbose`` does), with or
#: without the server's preparation: to tell the server's part of a click from the browser's.
TIMING_ENV = "TOKSTUDY_APP_TIMING"
#: the page (its URL path, "" for the start page) of the latest script run to start.
_requested: list[str | None] = [None]


@contextlib.contextmanager
def page_run(page: str | None = None):
    """Around a script run of ``page`` (its ``url_path``): background work pauses between its steps."""
    global _running
    with _idle:
        _running += 1
        if page is not None:
            _requested[0] = page
    verbose = os.environ.get("TOKSTUDY_APP_PREWARM") == "verbose" or os.environ.get(TIMING_ENV, "") not in ("", "0")
    if verbose:
        print(f"page run ({page}) starts at {time.time():.3f}", flush=True)
    try:
        yield
    finally:
        if verbose:
            print(f"page run ({page}) ends at {time.time():.3f}", flush=True)
        with _idle:
            _running -= 1
            _idle.notify_all()
        first_page.set()


def wait_for_pages(timeout: float = MAX_WAIT) -> None:
    """Return once no page is being drawn (or after ``timeout`` seconds)."""
    with _idle:
        _idle.wait_for(lambda: _running == 0, timeout=timeout)


def requested() -> str | None:
    """The page of the latest script run (``None`` before any)."""
    return _requested[0]
