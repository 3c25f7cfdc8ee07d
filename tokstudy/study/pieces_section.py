"""The study's "Pieces that disagree" section (``finetune.compare_labelling``): for every NER task and
tokenizer, the first seed's per-piece predictions (written beside its word predictions,
:func:`~tokstudy.analysis.model_errors.piece_predictions.piece_predictions_path`) read by
:func:`~tokstudy.analysis.model_errors.piece_agreement.piece_agreement`; first-piece and all-pieces models
(the task and its ``-allpieces`` / ``-firstpiece`` twin) side by side.

Two calls: the analysis stage writes the table (:func:`pieces_table`, then
:func:`~tokstudy.report.result.write_table` into ``tables/``), the report reads it back
(:func:`~tokstudy.report.result.read_table`) and shows it (:func:`~tokstudy.report.assemble.pieces_section`, as
``tokstudy report --piece-predictions`` does), so a re-rendered report states exactly what the table holds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
from tokstudy.analysis.model_errors.piece_predictions import piece_predictions_path, read_piece_predictions
from tokstudy.report.assemble import PIECES_TITLE, pieces_section
from tokstudy.report.pieces import pieces_report
from tokstudy.report.result import Table

TITLE = PIECES_TITLE
#: the table's stem under ``tables/``
STEM = "pieces"


def pieces_table(root: Path, runs: list[dict], *, n_resamples: int = 1000, seed: int = 0) -> Table | None:
    """The section's table from the runs (rows of the analysis' ``runs``: ``task``, ``tokenizer``, ``seed``,
    ``predictions`` relative to ``root``): one model per (task, tokenizer), its first seed, named
    ``<tokenizer> <task>``; None when no run wrote per-piece predictions."""
    first: dict[tuple[str, str], dict] = {}
    for run in runs:
        key = (run["task"], run["tokenizer"])
        if (
            run.get("predictions")
            and run.get("pretrained", True)
            and (key not in first or run["seed"] < first[key]["seed"])
        ):
            first[key] = run
    results = []
    for (task, tok), run in first.items():
        path = piece_predictions_path(root / run["predictions"])
        if path.is_file():
            res = piece_agreement(read_piece_predictions(path), n_resamples=n_resamples, seed=seed)
            results.append(dataclasses.replace(res, model=f"{tok} {task}"))
    return pieces_report(results) if results else None


__all__ = ["STEM", "TITLE", "pieces_section", "pieces_table"]
