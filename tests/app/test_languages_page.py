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
    assert row["parity"] == pytest.approx(pieces["de"].sum() / pieces["en"].sum())
    assert row["fertility (pieces per word)"] == pytest.approx(pieces["de"].mean())
    assert row["continued words %"] == pytest.approx(100 * (pieces["de"] >= 2).mean())
    en = table[(table.tokenizer == "spm-600") & (table.language == "en")].iloc[0]
    assert en["parity"] == pytest.approx(1.0)
    for value, interval in (("parity", "parity 95 % CI"), ("fertility (pieces per word)", "fertility 95 % CI")):
        low, high = (float(v) for v in row[interval].strip("[]").split(", "))
        assert low <= round(row[value], 4) <= high
    # named as a reader expects, not as the fields of the CSV (issue 24 item 10)
    assert not {"parity_low", "parity_high", "fertility_low", "continued_high"} & set(table.columns)


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


def test_the_parallel_text_is_segmented_once(app_env, data_location, monkeypatch):
    """Parity, fertility and continued words count the same segmentation: one encode call per
    tokenizer for the page's whole first computation (no second one for the text of unknown pieces)."""
    import streamlit as st

    from tests.app.conftest import new_app
    from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter

    st.cache_data.clear()
    st.cache_resource.clear()
    at = new_app(timeout=120).run()
    no_exceptions(at)
    calls: dict[str, int] = {}
    encode = SentencePieceSegmenter._encode

    def counted(self, words, out_type):
        calls[self.name] = calls.get(self.name, 0) + 1
        return encode(self, words, out_type)

    monkeypatch.setattr(SentencePieceSegmenter, "_encode", counted)
    at.switch_page("views/languages.py").run()
    no_exceptions(at)
    assert len(at.dataframe[0].value) == 3 * 6
    assert calls == {"spm-600": 1, "spm-1200": 1, "spm-2400": 1}
    st.cache_data.clear()
    st.cache_resource.clear()


def test_presegmented_counts_as_the_tokenizer(app_env):
    from analysis_app.services.languages import presegment
    from tokstudy.tokenization.loading import load_tokenizer

    seg = load_tokenizer(app_env / "tokenizers" / "spm-600")
    paras = {"en": ["The cat sat , on the mat .", "Unbelievably long words"], "ar": ["مرحبا بالعالم"]}
    (pre,) = presegment(paras, [seg])
    assert (pre.name, pre.vocab_size, pre.describe_boundary_policy()) == (
        seg.name,
        seg.vocab_size,
        seg.describe_boundary_policy(),
    )
    for words in (["mat", "cat", "mat", "مرحبا"], [], ["Unbelievably"], ["بالعالم", "on"]):
        got, want = pre.segment(words), seg.segment(words)
        assert list(got.offsets) == list(want.offsets)
        assert list(got.unk) == list(want.unk) and list(got.ids) == list(want.ids)
        # the text of a piece as the tokenizer gives it, but an unknown piece as the unknown token
        assert got.pieces == [seg.unk_piece if u else p for p, u in zip(want.pieces, want.unk)]
    assert pre.segment(["مرحبا"]).unk.any()  # the case above is exercised
    with pytest.raises(KeyError, match="dog"):
        pre.segment(["dog"])
