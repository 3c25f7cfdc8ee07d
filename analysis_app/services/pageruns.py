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
#: seconds after a script run has ended during which background work still waits: the browser draws
#: what the run sent (charts and tables, several tenths of a second on a page's first visit) and, on
#: two cores, a step started at once took a core from it (the click was slower by about as much).
DRAW_GRACE_S = 0.6
#: ``time.monotonic()`` when the latest script run ended (``-inf`` before any).
_last_end = [float("-inf")]
#: set when the first page run of this process has ended.
first_page = threading.Event()
#: set to print when each script run starts and ends (as ``TOKSTUDY_APP_PREWARM=verbose`` does), with or
#: without the server's preparation: to tell the server's part of a click from the browser's.
TIMING_ENV = "TOKSTUDY_APP_TIMING"


def timing_on() -> bool:
    """Whether script runs and preparation steps print their times (``TOKSTUDY_APP_TIMING`` or
    ``TOKSTUDY_APP_PREWARM=verbose``)."""
    return os.environ.get("TOKSTUDY_APP_PREWARM") == "verbose" or os.environ.get(TIMING_ENV, "") not in ("", "0")


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
    verbose = timing_on()
    if verbose:
        print(f"page run ({page}) starts at {time.time():.3f}", flush=True)
    try:
        yield
    finally:
        if verbose:
            print(f"page run ({page}) ends at {time.time():.3f}", flush=True)
        with _idle:
            _running -= 1
            _last_end[0] = time.monotonic()
            _idle.notify_all()
        first_page.set()


def wait_for_pages(timeout: float = MAX_WAIT, grace: float | None = None) -> None:
    """Return once no page is being drawn: no script run in progress and none ended in the last
    ``grace`` seconds (:data:`DRAW_GRACE_S`), or after ``timeout`` seconds."""
    grace = DRAW_GRACE_S if grace is None else grace
    deadline = time.monotonic() + timeout
    with _idle:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not _idle.wait_for(lambda: _running == 0, timeout=left):
                return
            drawing = _last_end[0] + grace - time.monotonic()
            if drawing <= 0:
                return
            _idle.wait(min(drawing, max(deadline - time.monotonic(), 0.0)))  # a new run wakes it early


def requested() -> str | None:
    """The page of the latest script run (``None`` before any)."""
    return _requested[0]
