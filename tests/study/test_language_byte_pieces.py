"""The study's languages section names languages whose pieces are mostly bytes."""

from __future__ import annotations

from tokstudy.analysis.stats.estimates import Estimate
from tokstudy.report.scores import Score
from tokstudy.study.across_languages import language_rows
from tokstudy.study.language_rows import LanguageSegmentation, ScoredTask
from tokstudy.study.language_sections import BYTE_PIECE_NOTE, _byte_piece_note


def _est(v):
    return Estimate(v, v, v, 10, 2)


def _seg(ne, all_, gap, byte_pieces, script):
    return LanguageSegmentation(_est(ne), _est(all_), _est(gap), _est(0.0), byte_pieces, script)


def test_byte_pieces_pass_from_segmentation_to_the_rows_and_the_note():
    tasks = [ScoredTask(f"m-{lang}-ner", "m", lang, f"m:{lang}:test") for lang in ("amh", "yor")]
    seg = {
        "t": {
            "m:amh:test": _seg(900.0, 800.0, 100.0, _est(98.7), "Ge'ez"),
            "m:yor:test": _seg(90.0, 80.0, 10.0, _est(BYTE_PIECE_NOTE), "Latin"),
        }
    }
    scores = {t.task: {"t": Score(50.0)} for t in tasks}
    rows = language_rows(tasks, seg, scores, order=["t"])
    assert [r.byte_pieces for r in rows] == [98.7, BYTE_PIECE_NOTE]
    note = _byte_piece_note(rows)
    assert len(note) == 1 and "amh (m) 98.7 %" in note[0] and "yor" not in note[0]  # above the threshold only
    # rows written before byte pieces were counted: no figure, no note
    unseen = {"t": {k: _seg(v.ne.value, v.all.value, v.gap.value, None, v.script) for k, v in seg["t"].items()}}
    old = language_rows(tasks, unseen, scores, order=["t"])
    assert _byte_piece_note(old) == []
