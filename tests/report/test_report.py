"""Report tables, Table 3 examples and write_report on in-memory data."""

from __future__ import annotations

import csv
import json

import pytest

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions, write_predictions
from tokstudy.analysis.stats import compare_tokenizers
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.parity import parity
from tokstudy.analysis.table import segmentation_table
from tokstudy.report import tables as rt
from tokstudy.report.table3 import SEPARATOR, examples, examples_markdown, select_sentences
from tokstudy.report.writer import write_report


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    ds = [random_dataset(31, 120), random_dataset(32, 60, name="b", language="de")]
    t = segmentation_table(ds, [ChunkSegmenter(2), ChunkSegmenter(5)], progress=False)
    path = tmp_path_factory.mktemp("p") / "m1.tsv"
    sents = [(s.words, s.tags, ["O"] * len(s.words)) for s in ds[0]]
    write_predictions(path, sents, metadata={"model": "all-O"})
    return ds, t, align_predictions(t, read_predictions(path), dataset="rand:test")


def test_select_sentences_prefers_entities_split_differently(setup):
    ds, t, _ = setup
    chosen = select_sentences(t, 5)
    a, b = ChunkSegmenter(2), ChunkSegmenter(5)

    def score(s):
        return sum(len(a.pieces(w)) - len(b.pieces(w)) for w, tag in zip(s.words, s.tags) if tag != "O")

    sents = [s for d in ds for s in d]
    best = sorted((score(s) for s in sents if len(s.words) <= 30), reverse=True)[:5]
    assert [score(sents[g]) for g in chosen] == best


def test_examples_show_pieces_gold_and_predictions(setup):
    ds, t, aligned = setup
    g = t.find_sentence("rand:test", 4)
    (ex,) = examples(t, [g], [aligned])
    s = ds[0][4]
    assert [w.word for w in ex.words] == list(s.words)
    assert [w.gold for w in ex.words] == list(s.tags)
    assert ex.words[0].pieces["chunk2"] == ChunkSegmenter(2).pieces(s.words[0])
    assert all(w.predicted == {"all-O": "O"} for w in ex.words)
    md = examples_markdown([ex])
    assert SEPARATOR.join(ChunkSegmenter(2).pieces(s.words[0])) in md and "sentence 4" in md
    if any(tag != "O" for tag in s.tags):
        assert "O ✗" in md
    # a sentence of the other dataset: the model has no prediction there
    (other,) = examples(t, [t.find_sentence("b:test", 0)], [aligned])
    assert all(w.predicted == {"all-O": ""} for w in other.words)


def test_markdown_table_escapes_pipes():
    assert rt.markdown_table([{"a": "x|y"}]) == "| a |\n|---|\n| x\\|y |"


def test_write_report_writes_every_output(setup, tmp_path):
    ds, t, aligned = setup
    par = parity(
        {"en": ["a bb ccc", "dddd"], "de": ["aaaaa b", "cc dd"]},
        [ChunkSegmenter(2), ChunkSegmenter(5)],
        bootstrap=BootstrapSettings(50),
    )
    files = write_report(t, tmp_path / "rep", predictions=[aligned], parity_results=par, boot=BootstrapSettings(50))
    names = {p.relative_to(tmp_path / "rep").as_posix() for p in files.files}
    for stem in (
        "table4",
        "summary",
        "intrinsic",
        "by_entity_type",
        "by_position",
        "by_language",
        "by_dataset",
        "examples",
        "correlation",
        "parity",
    ):
        for ext in ("md", "csv", "json"):
            assert f"{stem}.{ext}" in names, f"{stem}.{ext}"
    for fig in ("additional_segmentation", "error_by_pieces", "by_language", "parity"):
        for ext in ("png", "svg"):
            p = tmp_path / "rep" / "figures" / f"{fig}.{ext}"
            assert p.stat().st_size > 1000, p
    assert (tmp_path / "rep" / "figures" / "error_by_pieces.png").read_bytes()[:4] == b"\x89PNG"
    table4 = json.loads((tmp_path / "rep" / "table4.json").read_text())
    direct = compare_tokenizers(t, bootstrap=BootstrapSettings(50))
    assert [r["tokenizer"] for r in table4] == ["chunk2", "chunk5"]
    assert table4[0]["ne"]["value"] == pytest.approx(direct[0].ne.value)
    with open(tmp_path / "rep" / "table4.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert float(rows[1]["non_ne_pct"]) == pytest.approx(round(direct[1].non_ne.value, 2))
    index = files.index.read_text()
    assert "Table 4" in index and "Table 3" in index and "figures/additional_segmentation.png" in index
    assert "Boundary policy" in index
    # several datasets: Table 4 per language, its CSV holding language_table's own figures, and its figure
    from tokstudy.analysis.stats.per_language import language_table

    assert "## Table 4 per language" in index and "figures/languages.png" in index
    assert {"languages.md", "languages.csv", "figures/languages.png", "figures/languages.svg"} <= names
    with open(tmp_path / "rep" / "languages.csv", newline="") as fh:
        written = {(r["tokenizer"], r["dataset"]): float(r["gap_pp"]) for r in csv.DictReader(fh)}
    direct = language_table(t, bootstrap=BootstrapSettings(50))
    assert written == pytest.approx({(r.tokenizer, r.dataset): round(r.gap.value, 2) for r in direct.rows}, abs=0.006)
    # the index is a report document like the study's: Markdown and the same content as HTML
    from tokstudy.report.html import html_page

    assert index.startswith("# Segmentation report\n")
    html = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert html == html_page("Segmentation report", index) and "index.html" in names


def test_report_has_the_attribution_section_with_the_same_numbers(tmp_path):
    from tests.analysis.model_errors.test_attribution import confounded_corpus
    from tokstudy.analysis.model_errors.attribution import attribute_errors
    from tokstudy.report.attribution import CLAIM

    ds, preds, seg, counts = confounded_corpus(seed=3, n_sentences=800)
    t = segmentation_table([ds], [seg], progress=False)
    aligned = align_predictions(t, preds)
    files = write_report(
        t, tmp_path / "rep", predictions=[aligned], train=counts, train_label="synth:train", boot=BootstrapSettings(20)
    )
    index = files.index.read_text()
    assert CLAIM in index and "synth:train" in index and "figures/odds_ratios.png" in index
    assert (tmp_path / "rep" / "figures" / "odds_ratios.png").stat().st_size > 1000
    row = json.loads((tmp_path / "rep" / "attribution.json").read_text())["attribution"][0]
    direct = attribute_errors(t, aligned, train=counts)
    assert row["or_adjusted"] == pytest.approx(direct.adjusted.value, abs=1e-4)
    assert row["or_adjusted_low"] == pytest.approx(direct.adjusted.low, abs=1e-4)
    assert f"{direct.adjusted.value:.3f} [{direct.adjusted.low:.3f}, {direct.adjusted.high:.3f}]" in index


def test_attribution_json_keeps_full_precision_and_the_figure_is_shown_once(tmp_path):
    """attribution.json holds the fitted odds ratios and partial r unrounded (the Markdown rounds), and the
    index shows the odds-ratio figure once, in the attribution section (not again under Figures)."""
    from tests.analysis.model_errors.test_attribution import confounded_corpus
    from tokstudy.analysis.model_errors.attribution import attribute_errors

    ds, preds, seg, counts = confounded_corpus(seed=3, n_sentences=800)
    t = segmentation_table([ds], [seg], progress=False)
    aligned = align_predictions(t, preds)
    files = write_report(t, tmp_path / "rep", predictions=[aligned], train=counts, boot=BootstrapSettings(20))
    row = json.loads((tmp_path / "rep" / "attribution.json").read_text())["attribution"][0]
    direct = attribute_errors(t, aligned, train=counts)
    assert row["or_adjusted"] == direct.adjusted.value
    assert row["or_adjusted_high"] == direct.adjusted.high
    assert row["partial_r"] == direct.partial_r
    index = files.index.read_text()
    assert index.count("figures/odds_ratios.png") == 1
    assert "figures/error_by_pieces.png" in index.split("## Figures")[1]


def test_headers_read_as_words(setup):
    """The summary's NE / non-NE / all column is the "word set", and one piece is "1 piece"."""
    from tokstudy.analysis.stats import table_statistics
    from tokstudy.report.attribution import frequency_markdown
    from tokstudy.report.attribution_rows import FrequencyRow

    _, t, _ = setup
    md = rt.summary_markdown(table_statistics(t, bootstrap=BootstrapSettings(0)).summary)
    header = md.splitlines()[0]
    assert "| word set |" in header and "| words |" not in header
    cells = [FrequencyRow("t", "m", "unseen", p, 4, 1, 0.25) for p in ("1", "2", "4+")]
    header = frequency_markdown(cells).splitlines()[0]
    assert "| 1 piece |" in header and "| 2 pieces |" in header and "| 4+ pieces |" in header
    assert "1 pieces" not in header
