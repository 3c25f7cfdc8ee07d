"""The README's Python API example (docs/api_example.py) runs as written."""

from __future__ import annotations

import runpy
import tempfile

import pytest

from tests.conftest import PROJECT_ROOT, corpus_path


@pytest.mark.slow  # trains two small SentencePiece models and draws a report (~10-25 s)
def test_api_example_runs(capsys, monkeypatch, tmp_path):
    corpus_path("conll2003")
    corpus_path("raw_text")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the example's work folder lands in tmp_path
    runpy.run_path(str(PROJECT_ROOT / "docs" / "api_example.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "sp8k: NE " in out and "Pearson r = " in out and "report:" in out
    assert (next(tmp_path.iterdir()) / "report" / "index.md").is_file()
