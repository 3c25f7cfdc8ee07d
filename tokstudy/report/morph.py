"""The morpheme-boundary section of a report: Markdown, CSV rows and JSON of
:class:`~tokstudy.analysis.morph.scores.MorphResult` (computed in :mod:`tokstudy.analysis.morph`).

A report adds it as one table: :func:`morph_report` (``morph.{md,csv,json}``).

>>> from tokstudy.analysis.morph.scores import BoundaryCounts, MorphResult, MorphScoreCounts
>>> r = MorphResult("spm", "en", "en.csv", "morphscore", 4, MorphScoreCounts(3, 2, 1, 0), BoundaryCounts(4, 2, 5, 4))
>>> row = morph_rows([r])[0]
>>> row["MorphScore"], row["whole (excluded)"], row["precision"], row["recall"]
(0.6667, 1, 0.4, 0.5)
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from tokstudy.analysis.morph.scores import BandScores, BoundaryCounts, MorphResult, MorphScoreCounts
from tokstudy.report import names
from tokstudy.report.numbers import json_number
from tokstudy.report.result import Table
from tokstudy.report.tables import markdown_table


def _figures(ms: MorphScoreCounts | None, b: BoundaryCounts) -> dict:
    return {
        "MorphScore": json_number(ms.value, 4) if ms else None,
        "scored": ms.n_scored if ms else None,
        "whole (excluded)": ms.n_whole if ms else None,
        "unaligned (excluded)": b.n_unaligned,
        "precision": json_number(b.precision, 4),
        "recall": json_number(b.recall, 4),
        "F1": json_number(b.f1, 4),
        "gold boundaries": b.gold,
        "piece boundaries": b.predicted,
    }


def morph_rows(results: Sequence[MorphResult]) -> list[dict]:
    """One row per (gold file, tokenizer), then one per frequency band (``band`` ``all`` for the whole file)."""
    rows = []
    for r in results:
        head = {"language": r.language, "tokenizer": r.tokenizer, "format": r.format}
        rows.append({**head, "band": "all", "words": r.n_words, **_figures(r.morphscore, r.boundaries)})
        rows += [_band_row(head, b) for b in r.bands]
    return rows


def _band_row(head: dict, b: BandScores) -> dict:
    return {**head, "band": b.label, "words": b.n_words, **_figures(b.morphscore, b.boundaries)}


def morph_markdown(results: Sequence[MorphResult]) -> str:
    """The section: one table of every (gold file, tokenizer), the bands when a corpus was given, the conventions."""
    if not results:
        return "(no gold segmentations)"
    shown = lambda rows: [{k: ("–" if v is None else v) for k, v in row.items()} for row in rows]  # noqa: E731
    whole = [row for row in morph_rows(results) if row["band"] == "all"]
    parts = [
        "MorphScore (Arnett & Bergen): share of the words whose morpheme boundary of interest is a piece boundary, "
        "words the tokenizer leaves whole excluded (counted beside it); – where the gold file names no boundary "
        "of interest (SIGMORPHON). Precision / recall / F1: piece boundaries against all gold boundaries, "
        "micro-averaged over the words.",
        markdown_table(shown([{k: v for k, v in row.items() if k != "band"} for row in whole])),
    ]
    banded = [row for row in morph_rows(results) if row["band"] != "all"]
    if banded:
        parts.append("**By frequency band in the corpus** (occurrences of the exact word)")
        parts.append(markdown_table(shown(banded)))
    sources = dict.fromkeys(f"`{Path(r.source).name}` ({r.language}, {r.format})" for r in results)
    parts.append("Gold: " + ", ".join(sources) + ". Encoding: " + results[0].encoding + ".")
    policies = dict.fromkeys(f"{r.tokenizer}: {r.boundary_policy}" for r in results if r.boundary_policy)
    if policies:
        parts.append("Boundary policy: " + "; ".join(policies) + ".")
    return "\n\n".join(parts)


def morph_report(results: Sequence[MorphResult]) -> Table:
    """The section's table: MorphScore and boundary P/R/F1 per tokenizer and gold file."""
    return Table.of(names.MORPH, morph_markdown(results), morph_rows(results), list(results))
