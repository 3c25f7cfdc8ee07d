"""What the server computes as it starts is exactly what each page's first visit asks for.

After :meth:`analysis_app.services.background.BackgroundWork.prewarm` (run in the test's own thread), every
computation a page would start is replaced by one that fails: the page must still draw
without an exception, with the same numbers as a page that computed them itself.
"""

from __future__ import annotations

import pytest
import streamlit as st

from tests.app.conftest import new_background_work, no_exceptions, run_page, settle


def _forbid(monkeypatch):
    """Make every computation behind the pages' cached calls fail (a cache miss would call one)."""
    from analysis_app.services import languages, mislabels, statistics

    def fail(*a, **k):
        raise AssertionError("computed on the page's first visit: the server did not prepare it")

    for mod, name in (
        (statistics, "build_table"),
        (statistics, "table4"),
        (statistics, "grouped"),
        (statistics, "summary"),
        (mislabels, "correlate"),
        (mislabels, "align"),
        (mislabels, "mislabelled_words"),
        (languages, "language_frame"),
        (languages, "parity_frame"),
        (languages, "continued_frame"),
        (languages, "read_parallel"),
        (languages, "presegment"),
    ):
        monkeypatch.setattr(mod, name, fail)
    monkeypatch.setattr("tokstudy.analysis.model_errors.attribution.attribute_errors", fail)


@pytest.fixture
def fresh_caches():
    new_background_work()  # a job an earlier test started must not answer for this one
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    new_background_work()
    st.cache_data.clear()
    st.cache_resource.clear()


def test_every_page_reads_what_the_server_prepared(app_env, fresh_caches, monkeypatch):
    import os

    from analysis_app.components import cache
    from analysis_app.services.background import work
    from analysis_app.services.settings import parse_settings
    from tokstudy.datalocation import data_root

    monkeypatch.setenv("TOKSTUDY_APP_ALLOW_DIRS", os.path.abspath(data_root()))
    expected = {p: settle(run_page(f"views/{p}.py", timeout=180)) for p in ("statistics", "errors", "languages")}
    for at in expected.values():
        no_exceptions(at)
    assert any("OR per extra piece (adjusted)" in d.value.columns for d in expected["errors"].dataframe)
    new_background_work()  # the pages' jobs are done and would answer for the preparation's
    st.cache_data.clear()
    st.cache_resource.clear()

    timings = work().prewarm(parse_settings([]), cache, wait_for_first_page=False)
    assert {"table", "table 4", "correlation", "attribution", "table 4 per language", "parity", "continued"} <= set(
        timings
    )
    _forbid(monkeypatch)
    for page, before in expected.items():
        at = run_page(f"views/{page}.py", timeout=60)
        no_exceptions(at)
        assert len(at.dataframe) == len(before.dataframe) > 0, page
        for got, want in zip(at.dataframe, before.dataframe):
            assert got.value.equals(want.value), page


def test_switched_off_and_started_once(monkeypatch):
    from analysis_app.services.background import BackgroundWork, enabled

    assert not enabled({"TOKSTUDY_APP_PREWARM": "0"})
    assert enabled({})
    monkeypatch.setenv("TOKSTUDY_APP_PREWARM", "0")
    assert BackgroundWork().start(None, None) is False


def test_the_page_asked_for_is_prepared_first(monkeypatch):
    """A page opened while its preparation is still queued does not wait behind other pages' steps."""
    from analysis_app.services.background import BackgroundWork

    work = BackgroundWork()
    done = []
    queue = [(page, f"{page} {i}", done.append, (f"{page} {i}",)) for page in ("statistics", "errors") for i in (1, 2)]
    with work.page_run("errors"):  # the user opens the Errors page; the queue goes on once it is drawn
        pass
    work.run_queue(queue)
    assert done == ["errors 1", "errors 2", "statistics 1", "statistics 2"]
    assert work.requested() == "errors"
    with work.page_run("statistics"):
        pass
    queue = [("errors", "e", done.append, ("e",)), ("languages", "l", done.append, ("l",))]
    work.run_queue(queue)  # none of the Statistics page's: page order
    assert done[-2:] == ["e", "l"]


def test_preparation_pauses_while_a_page_is_drawn():
    import threading
    import time

    from analysis_app.services.background import BackgroundWork

    work = BackgroundWork()
    done = []
    page_started, page_ends = threading.Event(), threading.Event()

    def page():
        with work.page_run("languages"):
            page_started.set()
            page_ends.wait(5)
            done.append("page drawn")

    threading.Thread(target=page).start()
    page_started.wait(5)
    worker = threading.Thread(target=work.run_queue, args=([("errors", "e", done.append, ("step",))],))
    worker.start()
    time.sleep(0.2)
    assert done == []  # the step waits for the page
    page_ends.set()
    worker.join(5)
    assert done == ["page drawn", "step"]
