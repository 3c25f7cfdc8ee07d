"""What the server computes as it starts is exactly what each page's first visit asks for.

After :func:`analysis_app.services.prewarm.prewarm` (run in the test's own thread), every
computation a page would start is replaced by one that fails: the page must still draw
without an exception, with the same numbers as a page that computed them itself.
"""

from __future__ import annotations

import pytest
import streamlit as st

from tests.app.conftest import no_exceptions, run_page


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
        (languages, "parity_frame"),
        (languages, "continued_frame"),
        (languages, "read_parallel"),
    ):
        monkeypatch.setattr(mod, name, fail)
    monkeypatch.setattr("tokstudy.analysis.attribution.attribute_errors", fail)


@pytest.fixture
def fresh_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


def test_every_page_reads_what_the_server_prepared(app_env, fresh_caches, monkeypatch):
    import os

    from analysis_app.services import prewarm
    from analysis_app.services.settings import parse_settings
    from tokstudy.datalocation import data_root

    monkeypatch.setenv("TOKSTUDY_APP_ALLOW_DIRS", os.path.abspath(data_root()))
    expected = {p: run_page(f"views/{p}.py", timeout=180) for p in ("statistics", "errors", "languages")}
    for at in expected.values():
        no_exceptions(at)
    st.cache_data.clear()
    st.cache_resource.clear()

    timings = prewarm.prewarm(parse_settings([]), wait_for_first_page=False)
    assert {"table", "table 4", "correlation", "attribution", "parity", "continued"} <= set(timings)
    _forbid(monkeypatch)
    for page, before in expected.items():
        at = run_page(f"views/{page}.py", timeout=60)
        no_exceptions(at)
        assert len(at.dataframe) == len(before.dataframe) > 0, page
        for got, want in zip(at.dataframe, before.dataframe):
            assert got.value.equals(want.value), page


def test_switched_off_and_started_once(monkeypatch):
    from analysis_app.services import prewarm

    assert not prewarm.enabled({"TOKSTUDY_APP_PREWARM": "0"})
    assert prewarm.enabled({})
    monkeypatch.setenv("TOKSTUDY_APP_PREWARM", "0")
    assert prewarm.start(None) is False
