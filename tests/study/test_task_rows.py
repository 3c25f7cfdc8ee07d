"""What the study read of its tasks, read back typed: the committed rows round-trip, and the sections read them."""

from __future__ import annotations

import json

from tests.conftest import PROJECT_ROOT
from tokstudy.report import names
from tokstudy.study.report_sections import lenient_note
from tokstudy.study.task_rows import TaskData, TaskText
from tokstudy.study.tasks import SplitRecord

TABLES = PROJECT_ROOT / "examples" / "multilingual_report" / "tables"


def _json(stem):
    return json.loads((TABLES / f"{stem}.json").read_text(encoding="utf-8"))


def test_task_data_and_text_round_trip_to_the_committed_json():
    for stem, row in ((names.TASK_DATA, TaskData), (names.TASK_TEXT, TaskText)):
        data = _json(stem)
        assert [row.from_json(r).to_json() for r in data] == data, stem


def test_a_row_without_its_corpus_or_a_split_reads_as_none():
    row = TaskData.from_json({"task": "t", "train": {"split": "train", "sentences": 2, "available": 3}})
    assert row.corpus == "t" and row.test is None and row.splits() == [SplitRecord("train", 2, 3)]


def test_the_lenient_note_counts_the_repaired_tags_of_every_split():
    rows = [
        TaskData("a", train=SplitRecord("train", 5, 5, repaired=2), test=SplitRecord("test", 3, 3, repaired=1)),
        TaskData("b", dev=SplitRecord("dev", 4, 4, skipped_lines=1)),
    ]
    assert lenient_note(rows) == (
        "Read leniently: b dev: 1 malformed lines skipped (a field count other than the file's); "
        "3 I- tags that continue no entity read as B- in 2 task splits."
    )
