"""Every page opens without a traceback when the results directory does not exist yet."""

from __future__ import annotations

import pytest

from tests.app.conftest import new_app, no_exceptions


@pytest.mark.parametrize("page", [None, "views/statistics.py", "views/errors.py", "views/languages.py"])
def test_pages_explain_what_is_missing(page, monkeypatch, tmp_path):
    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(tmp_path / "results" / "demo"))
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path / "uploads"))
    at = new_app().run()
    if page:
        at.switch_page(page).run()
    no_exceptions(at)
    assert not at.error
    assert any("does not exist" in i.value for i in at.info)
    assert any("tokenizer" in i.value.lower() for i in at.info)
