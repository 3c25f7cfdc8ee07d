"""Each piece's own label, for the explorer: a model's per-piece predictions (the ``<stem>.pieces.tsv`` beside its
word predictions, :func:`~tokstudy.analysis.model_errors.piece_predictions.piece_predictions_path`) read once,
and one sentence drawn as escaped HTML: every word a box of its pieces, each piece coloured by the entity type of
its own predicted label (white for ``O``), its label and probability in its title; a word whose pieces disagree
is outlined, and marked with the label each aggregation gives it.

>>> from tokstudy.analysis.model_errors.piece_predictions import PiecePredictions, PieceSentence, PredictedWord
>>> import numpy as np
>>> w = PredictedWord("Lamb", "B-PER", 2, ("▁La", "mb"), np.array([[0.2, 0.8], [0.7, 0.3]]))
>>> labels = sentence_piece_labels(PiecePredictions(("O", "B-PER"), (PieceSentence(4, (w,)),)))
>>> labels[4][0].pieces, labels[4][0].disagree
((('▁La', 'B-PER', 0.8), ('mb', 'O', 0.7)), True)
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from analysis_app.services.explorer import entity_colour
from tokstudy.analysis.model_errors.piece_agreement import AGGREGATIONS, aggregate, disagrees
from tokstudy.analysis.model_errors.piece_predictions import (
    PiecePredictions,
    piece_predictions_path,
    read_piece_predictions,
)


@dataclass(frozen=True)
class WordPieces:
    """One word as the model labelled its pieces: ``(piece, label, probability)`` each, and each aggregation's
    label of the word."""

    word: str
    gold: str
    pieces: tuple[tuple[str, str, float], ...]
    by_aggregation: tuple[tuple[str, str], ...]
    disagree: bool


def pieces_file(predictions_path: str | Path) -> Path | None:
    """The per-piece file beside a word predictions file, when there is one."""
    path = piece_predictions_path(predictions_path)
    return path if path.is_file() else None


def sentence_piece_labels(predictions: PiecePredictions) -> dict[int, list[WordPieces]]:
    """Every sentence's words by ``sent_id``."""
    names = predictions.labels
    out = {}
    for s in predictions.sentences:
        words = []
        for w in s.words:
            pieces = tuple((p, names[k], float(w.probs[j, k])) for j, (p, k) in enumerate(zip(w.pieces, w.best)))
            agg = tuple((m, names[aggregate(w.probs, m, w.best)]) for m in AGGREGATIONS)
            words.append(WordPieces(w.word, w.gold, pieces, agg, disagrees(w)))
        out[s.sent_id] = words
    return out


def load_piece_labels(path: str | Path) -> dict[int, list[WordPieces]]:
    """:func:`sentence_piece_labels` of the file at ``path`` (errors name the file and line)."""
    return sentence_piece_labels(read_piece_predictions(path))


def _colour(label: str) -> str:
    return "#ffffff" if label == "O" else entity_colour(label.partition("-")[2])


def render_piece_labels(model: str, words: list[WordPieces]) -> str:
    """One model's strip for one sentence (see the module docstring)."""
    boxes = []
    for w in words:
        chips = "".join(
            f'<span class="ts-pl-piece" style="background:{_colour(label)}" '
            f'title="{html.escape(label)} p={prob:.2f}">{html.escape(piece)}</span>'
            for piece, label, prob in w.pieces
        )
        if w.disagree:
            title = "pieces disagree: " + ", ".join(f"{m} → {lab}" for m, lab in w.by_aggregation)
            boxes.append(f'<span class="ts-pl-word ts-pl-disagree" title="{html.escape(title)}">{chips}</span>')
        else:
            boxes.append(f'<span class="ts-pl-word">{chips}</span>')
    n = sum(w.disagree for w in words)
    style = (
        "<style>.ts-pl-word{display:inline-block;margin:2px 4px;padding:1px;border:1px solid #ccc}"
        ".ts-pl-disagree{border:2px dashed #c00}"
        ".ts-pl-piece{padding:0 2px;margin:0 1px;border:1px solid #ddd;font-family:monospace}</style>"
    )
    head = f"<div><b>pieces: {html.escape(model)}</b> ({n} word(s) whose pieces disagree)</div>"
    return f'{style}<div class="ts-pl-strip">{head}{"".join(boxes)}</div>'
