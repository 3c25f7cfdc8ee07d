"""The piece-agreement section of a report: Markdown, CSV rows and JSON of
:class:`~tokstudy.analysis.model_errors.piece_agreement.PieceAgreement` (one per model's per-piece predictions).

Two tables: how often a multi-piece word's pieces disagree (by number of pieces, NE / non-NE) with the error
rates of words whose pieces agree and disagree, then each aggregation's entity F1, word errors and word-level r.
A report adds it as one table: :func:`pieces_report` (``pieces.{md,csv,json}``). Files checked against a dataset
(:attr:`~tokstudy.analysis.model_errors.piece_agreement.PieceAgreement.dataset`) are named with it, in a
``dataset`` column and a sentence that says which part of it each covers.

>>> from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
>>> from tokstudy.analysis.model_errors.piece_predictions import PiecePredictions, PieceSentence, PredictedWord
>>> import numpy as np
>>> from tokstudy.analysis.stats.estimates import BootstrapSettings
>>> w = PredictedWord("Lamb", "B-PER", 2, ("▁La", "mb"), np.array([[0.2, 0.8], [0.9, 0.1]]))
>>> res = piece_agreement(PiecePredictions(("O", "B-PER"), (PieceSentence(0, (w,)),)), bootstrap=BootstrapSettings(0))
>>> [(r["aggregation"], r["word errors"]) for r in aggregation_rows([res])]
[('first', 0), ('average', 1), ('max', 1), ('majority', 0)]
"""

from __future__ import annotations

from typing import Sequence

from tokstudy.analysis.model_errors.piece_agreement import PieceAgreement
from tokstudy.report import names
from tokstudy.report.numbers import json_number
from tokstudy.report.result import Table
from tokstudy.report.tables import markdown_table


def _share(n: int, of: int) -> float | None:
    return json_number(n / of, 4) if of else None


def _named(r: PieceAgreement, results: Sequence[PieceAgreement]) -> dict:
    """A row's first columns: the model, and the dataset its file was checked against where any file was."""
    return {"model": r.model} | ({"dataset": r.dataset} if any(x.dataset for x in results) else {})


def _coverage(results: Sequence[PieceAgreement]) -> str:
    """The sentence naming the datasets the files were checked against and the part of each they cover."""
    checked = [r for r in results if r.dataset]
    if not checked:
        return ""
    names = ", ".join(dict.fromkeys(r.dataset for r in checked))
    parts = [f"Each per-piece file was checked against {names}, every sentence, word and gold tag."]
    parts += [
        f"{r.model} covers the {r.subset} of {r.dataset}: its figures are over those sentences only."
        for r in checked
        if r.subset
    ]
    return " ".join(parts)


def disagreement_rows(results: Sequence[PieceAgreement]) -> list[dict]:
    """One row per model and group of words (all, NE, non-NE): how many multi-piece words, the share whose pieces
    disagree overall and by number of pieces; on the ``all`` row, the error rates of words whose pieces agree
    and disagree (first piece) and the truncated words."""
    rows = []
    for r in results:
        groups = (("all", r.by_pieces), ("NE", r.by_pieces_ne), ("non-NE", r.by_pieces_other))
        for group, bins in groups:
            multi, disagree = sum(b.n_words for b in bins), sum(b.n_disagree for b in bins)
            row = _named(r, results) | {"words": group, "multi-piece": multi, "disagree": disagree}
            row |= {"share": _share(disagree, multi)} | {
                f"{b.pieces} pieces": _share(b.n_disagree, b.n_words) for b in bins
            }
            first = group == "all"
            row |= {
                "error rate, agree": json_number(r.agree_error_rate, 4) if first else None,
                "error rate, disagree (first)": json_number(r.disagree_error_rate("first"), 4) if first else None,
                "truncated words": r.n_truncated if first else None,
            }
            rows.append(row)
    return rows


def aggregation_rows(results: Sequence[PieceAgreement]) -> list[dict]:
    """One row per (model, aggregation): entity P/R/F1, word errors, errors among disagreeing words, r."""
    rows = []
    for r in results:
        for a in r.aggregations:
            rows.append(
                _named(r, results)
                | {
                    "aggregation": a.method,
                    "precision": json_number(a.entities.precision, 4),
                    "recall": json_number(a.entities.recall, 4),
                    "F1": json_number(a.entities.f1, 4),
                    "word errors": a.n_errors,
                    "error rate": _share(a.n_errors, r.n_words),
                    "error rate, pieces disagree": json_number(r.disagree_error_rate(a.method), 4),
                    "r": json_number(a.r.r, 3),
                    "r (NE words)": json_number(a.r_ne.r, 3),
                }
            )
    return rows


def pieces_rows(results: Sequence[PieceAgreement]) -> list[dict]:
    """The CSV: the aggregation rows, each with its model's disagreement figures over all words."""
    by_model = {row["model"]: row for row in disagreement_rows(results) if row["words"] == "all"}
    keep = lambda row: {k: v for k, v in row.items() if k != "words"}  # noqa: E731
    return [{**keep(by_model[row["model"]]), **row} for row in aggregation_rows(results)]


def pieces_markdown(results: Sequence[PieceAgreement]) -> str:
    """The section: the datasets the files were checked against (when they were), disagreement, then the
    aggregations, then the conventions."""
    if not results:
        return "(no per-piece predictions)"
    shown = lambda rows: [{k: ("–" if v is None else v) for k, v in row.items()} for row in rows]  # noqa: E731
    coverage = _coverage(results)
    return "\n\n".join(
        ([coverage] if coverage else [])
        + [
            "**Pieces that disagree.** Share of multi-piece words whose predicted pieces carry more than one label "
            "(the full tag: B-PER and I-PER differ), overall and by number of pieces, over all words, gold NE words "
            "and the others; the error rate (word label != gold) of words whose pieces agree (every aggregation "
            "gives them the same label) and of those whose pieces disagree, labelled by their first piece.",
            markdown_table(shown(disagreement_rows(results))),
            "**How words get their label.** Per aggregation: entity precision / recall / F1 (seqeval's default "
            "mode), word errors, the error rate among words whose pieces disagree, and Pearson r of a word's "
            "pieces (the model's tokenizer) with its error. first: the first piece's label; average: the best "
            "label of the probabilities averaged over the pieces; max: the label of the most confident piece; "
            "majority: the label most pieces carry, a tie going to the tied label that comes first in the word.",
            markdown_table(shown(aggregation_rows(results))),
            "Only the pieces a model window held count: a word longer than a window keeps its first pieces "
            "(truncated words, counted above).",
        ]
    )


def pieces_report(results: Sequence[PieceAgreement]) -> Table:
    """The section's table: piece agreement and aggregations per model."""
    return Table.of(names.PIECES, pieces_markdown(results), pieces_rows(results), list(results))
