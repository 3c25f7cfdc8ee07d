"""The report's repairs section says what lenient reading did: tags repaired, fused lines split, lines skipped."""

from tokstudy.data.repairs import FUSED, RAGGED, START, RepairLog
from tokstudy.report.build import repairs


def _log(counts: dict) -> dict:
    return {"dataset": "ned:test", **RepairLog(counts, (), "ned.testb").to_dict()}


def test_fused_and_skipped_lines_are_not_called_repaired_tags():
    text = repairs([_log({START: 2, FUSED: 112, RAGGED: 1})]).markdown
    assert "**ned:test**: 2 tags repaired, 112 fused lines split and 1 line skipped in `ned.testb`" in text
    assert "115 tags repaired" not in text


def test_only_tags():
    text = repairs([_log({START: 3})]).markdown
    assert "**ned:test**: 3 tags repaired in `ned.testb` (lenient reading)." in text
