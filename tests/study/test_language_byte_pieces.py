"""The study's languages section names languages whose pieces are mostly bytes (issue 33 item 3)."""

from __future__ import annotations

from tokstudy.study.across_languages import language_rows
from tokstudy.study.language_sections import BYTE_PIECE_NOTE, _byte_piece_note


def _est(v):
    return {"value": v, "low": v, "high": v}


def test_byte_pieces_pass_from_segmentation_to_the_rows_and_the_note():
    tasks = [
        {"task": f"m-{lang}-ner", "dataset": "m", "language": lang, "test": f"m:{lang}:test"} for lang in ("amh", "yor")
    ]
    seg = {
        "t": {
            "m:amh:test": {
                "ne": _est(900.0),
                "all": _est(800.0),
                "gap": _est(100.0),
                "unknown": _est(0.0),
                "byte_pieces": _est(98.7),
                "script": "Ge'ez",
            },
            "m:yor:test": {
                "ne": _est(90.0),
                "all": _est(80.0),
                "gap": _est(10.0),
                "unknown": _est(0.0),
                "byte_pieces": _est(BYTE_PIECE_NOTE),
                "script": "Latin",
            },
        }
    }
    scores = {t["task"]: {"t": {"mean": 50.0}} for t in tasks}
    rows = language_rows(tasks, seg, scores, order=["t"])
    assert [r["byte_pieces"] for r in rows] == [98.7, BYTE_PIECE_NOTE]
    note = _byte_piece_note(rows)
    assert len(note) == 1 and "amh (m) 98.7 %" in note[0] and "yor" not in note[0]  # above the threshold only
    # rows written before byte pieces were counted: no figure, no note
    old = language_rows(tasks, {"t": {k: {**v, "byte_pieces": None} for k, v in seg["t"].items()}}, scores, order=["t"])
    assert _byte_piece_note(old) == []
