"""The report's repairs section says what lenient reading did: tags repaired, fused lines split, lines skipped."""

from tokstudy.data.repairs import FUSED, RAGGED, START, Repair, RepairLog
from tokstudy.data.types import Dataset, Sentence
from tokstudy.inputs.load import repair_logs
from tokstudy.report.build import repairs
from tokstudy.report.repairs import DatasetRepairs, RepairsTable


def _logs(counts: dict) -> dict[str, RepairLog]:
    return {"ned:test": RepairLog(counts, (), "ned.testb")}


def test_fused_and_skipped_lines_are_not_called_repaired_tags():
    text = repairs(_logs({START: 2, FUSED: 112, RAGGED: 1})).markdown
    assert "**ned:test**: 2 tags repaired, 112 fused lines split and 1 line skipped in `ned.testb`" in text
    assert "115 tags repaired" not in text


def test_only_tags():
    text = repairs(_logs({START: 3})).markdown
    assert "**ned:test**: 3 tags repaired in `ned.testb` (lenient reading)." in text


def test_an_entry_is_read_once_typed_and_written_back_as_it_came():
    log = RepairLog.of([Repair(START, "/data/c/ned.testb", 7, "I-PER", "B-PER", "'O'")])
    ds = Dataset((Sentence(("a",), ("B-PER",)),), name="ned", split="test", repair_log=log)
    shown = repair_logs([ds], "/data")["ned"]
    assert shown.source == "c/ned.testb" and shown.first[0].where() == "c/ned.testb:7"
    entry = DatasetRepairs.of("ned", shown)
    # the JSON is the log's, its keys in the log's order, with the dataset first
    assert list(entry.to_json().items()) == list({"dataset": "ned", **shown.to_dict()}.items())
    assert DatasetRepairs.from_json(entry.to_json()) == entry
    table = repairs({"ned": shown})
    assert table.data == [entry.to_json()] and RepairsTable.from_json(table.data) == RepairsTable((entry,))
    assert table.rows == [
        {"dataset": "ned", "where": "c/ned.testb:7", "kind": START, "tag": "I-PER", "became": "B-PER", "after": "'O'"}
    ]


def test_nothing_repaired_is_an_empty_table():
    assert RepairsTable.of({}).to_json() == [] and repairs({}).data == []
