"""Background work waits while a page is drawn: during a script run and for a short grace after it."""

from __future__ import annotations

import threading
import time

from analysis_app.services import pageruns


def _waited(**kwargs) -> float:
    t0 = time.monotonic()
    pageruns.wait_for_pages(**kwargs)
    return time.monotonic() - t0


def test_waits_for_the_run_then_for_the_grace():
    release = threading.Event()

    def page():
        with pageruns.page_run("errors"):
            release.wait(5)

    t = threading.Thread(target=page)
    t.start()
    time.sleep(0.05)
    threading.Timer(0.3, release.set).start()
    waited = _waited(grace=0.4)
    t.join()
    assert 0.3 + 0.4 - 0.05 <= waited < 0.3 + 0.4 + 1.0  # the run, then the grace after its end
    assert pageruns.requested() == "errors"
    time.sleep(0.2)
    assert _waited(grace=0.1) < 0.05  # the grace has passed: no wait


def test_timeout_bounds_the_wait():
    with pageruns.page_run("statistics"):
        assert _waited(timeout=0.2, grace=0.0) < 0.6
    assert 0.1 <= _waited(timeout=0.2, grace=5.0) < 0.6  # a run just ended, but the timeout wins
