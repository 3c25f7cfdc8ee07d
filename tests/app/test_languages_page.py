"""The Languages page on the real parallel text (xquad_parallel)."""

from __future__ import annotations

import pytest

from tests.app.conftest import no_exceptions, run_page
from tests.conftest import corpus_path


@pytest.fixture(params=["absolute", "relative"])
def data_location(request, monkeypatch):
    """The data location as an absolute path and as a relative one (the Makefile's ``../shared/data``)."""
    import os
    from pathlib import Path

    from tokstudy.datalocation import data_root

    root = Path(os.path.abspath(data_root()))
    monkeypatch.setenv("TOKSTUDY_DATA", str(root) if request.param == "absolute" else os.path.relpath(root))
    monkeypatch.setenv("TOKSTUDY_APP_ALLOW_DIRS", os.environ["TOKSTUDY_DATA"])
    return root


def test_parity_and_fertility_match_a_recount(app_env, data_location):
    from tokstudy.data.parallel import read_parallel
    from tokstudy.tokenization.loading import load_tokenizer

    xquad = corpus_path("xquad_parallel")
    at = run_page("views/languages.py")
    no_exceptions(at)
    table = at.dataframe[0].value
    assert set(table.language) == {"en", "de", "es", "ru", "ar", "zh"}
    paras = read_parallel(xquad, ["en", "de"])
    seg = load_tokenizer(app_env / "tokenizers" / "spm-600")
    pieces = {l: seg.segment([w for p in paras[l] for w in p.split()]).counts for l in ("en", "de")}
    row = table[(table.tokenizer == "spm-600") & (table.language == "de")].iloc[0]
    assert row.parity == pytest.approx(pieces["de"].sum() / pieces["en"].sum())
    assert row.fertility == pytest.approx(pieces["de"].mean())
    assert row.continued == pytest.approx(100 * (pieces["de"] >= 2).mean())
    en = table[(table.tokenizer == "spm-600") & (table.language == "en")].iloc[0]
    assert en.parity == pytest.approx(1.0)
    assert row.parity_low <= row.parity <= row.parity_high
    assert row.fertility_low <= row.fertility <= row.fertility_high


def test_folder_outside_allowed_dirs_and_bad_upload(app_env):
    at = run_page("views/languages.py")
    at.text_input(key="ts_la_dir").set_value("/etc").run()
    no_exceptions(at)
    assert any("outside the directories" in e.value for e in at.error)
    at.file_uploader(key="ts_in_tok_upload").set_value(
        ("tok.json", b'{"model": {"vocab": []}}', "application/json")
    ).run()
    no_exceptions(at)
    assert any("not a Hugging Face tokenizer.json" in e.value for e in at.error), [e.value for e in at.error]
