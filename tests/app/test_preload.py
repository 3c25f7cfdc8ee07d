"""The hidden empty chart and table of a session's first run (``components/preload.py``)."""

from __future__ import annotations

from tests.app.conftest import new_app, no_exceptions


def test_first_run_sends_a_hidden_chart_and_table_later_runs_do_not(app_env):
    from analysis_app.components.preload import CONTAINER, DONE

    at = new_app().run()
    no_exceptions(at)
    assert at.session_state[DONE]
    empty = [d for d in at.dataframe if d.value.empty]
    assert len(empty) == 1 and list(empty[0].value.columns) == ["x"]
    assert len(at.get("vega_lite_chart")) == 1
    assert any(f".st-key-{CONTAINER}" in h.proto.body and "display: none" in h.proto.body for h in at.get("html"))
    at.run()  # a rerun of the same session: nothing hidden any more
    no_exceptions(at)
    assert not any(d.value.empty for d in at.dataframe)
    assert not at.get("vega_lite_chart")
    assert not any(f".st-key-{CONTAINER}" in h.proto.body for h in at.get("html"))
