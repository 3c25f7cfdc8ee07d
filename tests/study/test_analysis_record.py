"""The study's report reads the analysis stage's outcome typed: its record is decoded by
``AnalysisWritten.from_json`` alone, an older record's missing fields filled there."""

from __future__ import annotations

from tokstudy.study.outcomes import AnalysisWritten
from tokstudy.study.report_sections import _data_section
from tokstudy.study.sources import Sources


def test_a_record_and_the_outcome_read_the_same():
    written = AnalysisWritten(("wikiann:xx",), ("a", "b"), {"a": 8000, "b": 16000}, "conll2003:test", ("t",), ("f",))
    assert AnalysisWritten.from_json(written.to_json()) == written


def test_an_older_record_without_the_tokenizers_reads_them_from_the_sizes():
    old = AnalysisWritten.from_json({"vocab_sizes": {"a": 1, "b": 2}, "table4_dataset": "d"})
    assert old.tokenizers == ("a", "b") and old.skipped_datasets == () and old.tables == () and old.figures == ()


def test_a_record_with_its_tokenizers_keeps_them_in_its_order():
    record = {"vocab_sizes": {"a": 1, "b": 2}, "table4_dataset": "d", "tokenizers": ["b", "a"]}
    assert AnalysisWritten.from_json(record).tokenizers == ("b", "a")


def test_the_skipped_datasets_are_named_as_a_list(tmp_path):
    record = AnalysisWritten.from_json({"vocab_sizes": {"a": 1}, "table4_dataset": "d", "skipped_datasets": ["x:test"]})
    section = _data_section(record, Sources(data_dir=tmp_path, notes=["Sample data."]))
    assert section.body == "Sample data.\n\nSkipped (not available): ['x:test']."
