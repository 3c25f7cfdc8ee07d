"""Background work (``analysis_app/services/background.py``) waits while a page is drawn: during a script run
and for a short grace after it; one job per (function, arguments); one ``BackgroundWork`` per process. The
server's preparation is tested in ``test_prewarm.py``."""

from __future__ import annotations

import threading
import time

from analysis_app.services.background import BackgroundWork


def _waited(work: BackgroundWork, **kwargs) -> float:
    t0 = time.monotonic()
    work.wait_for_pages(**kwargs)
    return time.monotonic() - t0


def test_waits_for_the_run_then_for_the_grace():
    work = BackgroundWork()
    release = threading.Event()

    def page():
        with work.page_run("errors"):
            release.wait(5)

    t = threading.Thread(target=page)
    t.start()
    time.sleep(0.05)
    threading.Timer(0.3, release.set).start()
    waited = _waited(work, grace=0.4)
    t.join()
    assert 0.3 + 0.4 - 0.05 <= waited < 0.3 + 0.4 + 1.0  # the run, then the grace after its end
    assert work.requested() == "errors"
    time.sleep(0.2)
    assert _waited(work, grace=0.1) < 0.05  # the grace has passed: no wait


def test_timeout_bounds_the_wait():
    work = BackgroundWork()
    with work.page_run("statistics"):
        assert _waited(work, timeout=0.2, grace=0.0) < 0.6
    assert 0.1 <= _waited(work, timeout=0.2, grace=5.0) < 0.6  # a run just ended, but the timeout wins


def test_one_job_per_function_and_arguments():
    work = BackgroundWork()
    calls = []
    first = work.submit(calls.append, "x")
    assert work.submit(calls.append, "x") is first  # running or done: the same job
    first.result(5)
    assert calls == ["x"]
    assert work.done(calls.append, "x") and not work.done(calls.append, "y")


def test_one_background_work_per_process():
    from analysis_app.services.background import work

    assert work() is work()
