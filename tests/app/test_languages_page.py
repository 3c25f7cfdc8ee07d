"""The Languages page: Table 4 per language of the loaded datasets (MultiCoNER's 11 dev languages), a study's
F1, a language opened in the explorer; parity and fertility on the real parallel text (xquad_parallel)."""

from __future__ import annotations

import pytest

from tests.app.conftest import no_exceptions, run_page
from tests.conftest import corpus_path
from tokstudy.analysis.stats.estimates import BootstrapSettings


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
    from tokstudy.data.rawtext import read_parallel
    from tokstudy.tokenization.loading import load_tokenizer

    xquad = corpus_path("xquad_parallel")
    at = run_page("views/languages.py")
    no_exceptions(at)
    table = at.dataframe[-1].value  # the parallel text's table comes last
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
    # the page's Table 4 per language of the sidebar's dataset: the Statistics page's table, segmented here first
    at.switch_page("views/statistics.py").run()
    no_exceptions(at)
    calls: dict[str, int] = {}
    encode = SentencePieceSegmenter._encode

    def counted(self, words, out_type):
        calls[self.name] = calls.get(self.name, 0) + 1
        return encode(self, words, out_type)

    monkeypatch.setattr(SentencePieceSegmenter, "_encode", counted)
    at.switch_page("views/languages.py").run()
    no_exceptions(at)
    assert len(at.dataframe[-1].value) == 3 * 6
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


# ---- Table 4 per language of the loaded datasets ------------------------------------------------

MULTICONER_DEV = "multiconer2022:*:dev"


def _table4(at):
    """The page's Table 4 per language (the dataframe with a gap column)."""
    return next(d.value for d in at.dataframe if "gap NE − non-NE (pp)" in d.value.columns)


def _multiconer_page(timeout: float = 120):
    corpus_path("multiconer2022")
    at = run_page("views/languages.py", timeout=timeout)
    at.multiselect(key="ts_la_sets").set_value([MULTICONER_DEV]).run()
    no_exceptions(at)
    return at


def test_every_language_with_its_script_and_table4_equal_to_the_library(app_env):
    from analysis_app.services.sources import registry_datasets
    from tokstudy.analysis.stats.per_language import language_table
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.data.names import load_datasets_named
    from tokstudy.tokenization.loading import load_tokenizer

    at = _multiconer_page()
    listing = at.dataframe[0].value  # every loaded dataset's language and script
    assert len(listing) == len(registry_datasets())
    ko = listing[listing.dataset == "multiconer2022-ko:dev"].iloc[0]
    assert (ko.language, ko.script) == ("ko", "Hangul")
    assert listing[listing.dataset == "masakhaner2-yor:test"].iloc[0].script == "Latin"
    table = _table4(at)
    names = ["spm-600", "spm-1200", "spm-2400"]
    assert len(table) == 11 * 3 and set(table.tokenizer) == set(names)
    first = table[table.tokenizer == "spm-600"]
    gaps = list(first["gap NE − non-NE (pp)"])
    assert gaps == sorted(gaps, reverse=True)  # largest gap first
    scripts = dict(zip(first.language, first.script))
    assert scripts == {
        **dict.fromkeys(["de", "en", "es", "nl", "tr"], "Latin"),
        **{"bn": "Bengali", "fa": "Arabic", "hi": "Devanagari", "ko": "Hangul", "ru": "Cyrillic", "zh": "Han"},
    }
    # the same numbers as the library's on the same files and tokenizers
    segs = [load_tokenizer(app_env / "tokenizers" / n, name=n) for n in names]
    want = language_table(
        segmentation_table(load_datasets_named(MULTICONER_DEV), segs, progress=False),
        bootstrap=BootstrapSettings(200, seed=0),
    )
    by_language = {(r.tokenizer, r.language): r for r in want.rows}
    for _, row in table.iterrows():
        r = by_language[(row.tokenizer, row.language)]
        assert row["NE %"] == pytest.approx(r.ne.value, abs=0.005)
        assert row["gap NE − non-NE (pp)"] == pytest.approx(r.gap.value, abs=0.01)
        assert row["gap 95 % CI"] == f"[{r.gap.low:.2f}, {r.gap.high:.2f}]"
    # no study loaded: the F1 column is there, empty, and says why
    assert table["F1 (no study results loaded)"].isna().all()
    # the unknown-piece warning of each tokenizer names the languages its English vocabulary does not cover
    warned = [w.value for w in at.warning if "unknown pieces in" in w.value]
    assert len(warned) == 3 and all("ko " in w and "Hangul" in w for w in warned)


def test_a_studys_f1_is_shown_for_the_languages_it_fine_tuned_on(app_env, tmp_path, monkeypatch):
    import json
    import shutil

    results = tmp_path / "study"
    shutil.copytree(app_env / "tokenizers", results / "tokenizers")
    scores = {
        "multiconer2022-ko-ner": {"spm-600": {"mean": 55.5, "std": 1.0, "n": 3, "metric": "F1"}},
        "multiconer2022-de-ner": {"spm-1200": {"mean": 61.25, "std": 0.5, "n": 3, "metric": "F1"}},
        "snips-classification": {"spm-600": {"mean": 90.0, "std": 0.1, "n": 3, "metric": "accuracy"}},
    }
    (results / "tables").mkdir()
    (results / "tables" / "scores.json").write_text(json.dumps(scores))
    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(results))
    table = _table4(_multiconer_page())
    f1 = table.set_index(["tokenizer", "language"])["F1 (study study)"]
    assert f1[("spm-600", "ko")] == 55.5 and f1[("spm-1200", "de")] == 61.25
    assert f1.drop([("spm-600", "ko"), ("spm-1200", "de")]).isna().all()  # languages it fine-tuned none on


def test_a_language_opens_its_sentences_in_the_explorer(app_env):
    from tokstudy.data.registry import load_dataset

    at = _multiconer_page()
    at.selectbox(key="ts_la_open").set_value("multiconer2022-ko:dev")
    at.button(key="ts_la_open_button").click().run()
    no_exceptions(at)
    first = load_dataset("multiconer2022", "dev", language="ko")[0]
    assert at.session_state["ts_sel_dataset"] == "multiconer2022-ko:dev"
    assert at.session_state["ts_ex_mode"] == "dataset"
    assert any(c.value.startswith(f"multiconer2022-ko:dev, sentence {first.sent_id}") for c in at.caption)
    shown = " ".join(h.body for h in at.get("html"))
    assert all(w in shown for w in first.words[:3])
