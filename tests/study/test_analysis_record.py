"""The study's report reads the analysis stage's outcome typed, from the outcome or from its record."""

from __future__ import annotations

from tokstudy.study.outcomes import AnalysisWritten
from tokstudy.study.report_sections import _data_section, analysis_record
from tokstudy.study.sources import Sources


def test_a_record_and_the_outcome_read_the_same():
    written = AnalysisWritten(("wikiann:xx",), ("a", "b"), {"a": 8000, "b": 16000}, "conll2003:test", ("t",), ("f",))
    assert analysis_record(written.to_json()) == written and analysis_record(written) is written


def test_an_older_record_without_the_tokenizers_reads_them_from_the_sizes():
    old = analysis_record({"vocab_sizes": {"a": 1, "b": 2}, "table4_dataset": "d"})
    assert old.tokenizers == ("a", "b") and old.skipped_datasets == () and old.tables == ()


def test_the_skipped_datasets_are_named_as_a_list(tmp_path):
    record = analysis_record({"vocab_sizes": {"a": 1}, "table4_dataset": "d", "skipped_datasets": ["x:test"]})
    section = _data_section(record, Sources(data_dir=tmp_path, notes=["Sample data."]))
    assert section.body == "Sample data.\n\nSkipped (not available): ['x:test']."
