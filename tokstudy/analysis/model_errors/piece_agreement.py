"""Pieces that disagree, and how a word gets its label from its pieces.

A token classifier labels pieces; a user wants words. When a word's pieces get different labels
("one word, several entities"), the word's label depends on how they are combined. From per-piece
predictions (:mod:`.piece_predictions`) this module measures:

* **disagreement**: the share of multi-piece words whose predicted pieces do not all carry the same label
  (the full tag: ``B-PER`` and ``I-PER`` differ), by number of pieces (2, 3, 4, 5+) over all words,
  gold NE words (gold tag not ``O``) and the others. Only the pieces the model saw count: a word cut by a
  window holds fewer predicted pieces than it has;
* the **error rate** (word label != gold) of words whose pieces agree and of those whose pieces disagree;
  where the pieces agree every aggregation gives the same label, where they disagree it is given per
  aggregation;
* per **aggregation**, entity precision / recall / F1 (conlleval / seqeval default semantics: an entity is
  correct when its span and type match a gold one; spans from :func:`tokstudy.data.types.iob2_spans`), the
  word error rate and the word-level Pearson r of pieces (the model's own) and error, with
  :func:`~tokstudy.analysis.model_errors.correlation.correlation` (bootstrap CI over sentences), over all
  words and over gold NE words.

The aggregations (:data:`AGGREGATIONS`):

* ``first``: the first piece's label (what the fine-tuner's word predictions read, with argmax decoding);
* ``average``: the label with the highest probability averaged over the pieces;
* ``max``: the label of the single most confident piece (the highest probability of any label on any piece);
* ``majority``: the label most pieces carry; a tie goes to the tied label that comes first in the word (so the
  first piece wins any tie it is part of).

Ties between labels inside ``average`` and ``max`` go to the lower label id (the order of the file's labels).

>>> import numpy as np
>>> probs = np.array([[0.6, 0.4, 0.0], [0.1, 0.0, 0.9], [0.1, 0.0, 0.9]])
>>> [aggregate(probs, m) for m in AGGREGATIONS]
[0, 2, 2, 2]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.correlation import Correlation, correlation, error_rate
from tokstudy.analysis.model_errors.piece_predictions import PiecePredictions, PredictedWord
from tokstudy.analysis.stats import BootstrapSettings
from tokstudy.analysis.table import SegmentationTable
from tokstudy.data.types import iob2_spans

AGGREGATIONS = ("first", "average", "max", "majority")
#: number-of-pieces bins of multi-piece words
PIECE_BINS = ("2", "3", "4", "5+")


def aggregate(probs: np.ndarray, method: str, best: tuple[int, ...] | None = None) -> int:
    """The label id a word gets from its pieces' ``probs`` (``[pieces, labels]``) under ``method``.

    ``best``: each piece's best label id, when known exactly (else the argmax of each row)."""
    best = tuple(int(k) for k in probs.argmax(axis=1)) if best is None else best
    if method == "first":
        return best[0]
    if method == "average":
        return int(probs.mean(axis=0).argmax())
    if method == "max":
        return int(probs.max(axis=0).argmax())
    if method == "majority":
        counts: dict[int, int] = {}
        for k in best:
            counts[k] = counts.get(k, 0) + 1
        top = max(counts.values())
        return next(k for k in best if counts[k] == top)  # the tied label that comes first in the word
    raise ValueError(f"unknown aggregation {method!r}; expected one of {AGGREGATIONS}")


def word_tags(predictions: PiecePredictions, method: str) -> list[list[str]]:
    """Each word's tag under ``method``, sentence by sentence."""
    names = predictions.labels
    return [[names[aggregate(w.probs, method, w.best)] for w in s.words] for s in predictions.sentences]


@dataclass(frozen=True)
class EntityF1:
    """Micro entity precision, recall and F1 (0 where undefined) with the counts they come from."""

    precision: float
    recall: float
    f1: float
    n_gold: int
    n_pred: int
    n_correct: int


def entity_f1(gold: list[list[str]], pred: list[list[str]]) -> EntityF1:
    """Entity scores over sentences of IOB2 tags, as seqeval's default mode counts them.

    >>> entity_f1([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "B-LOC"]]).f1
    0.6666666666666666
    """
    n_gold = n_pred = n_correct = 0
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        if len(g) != len(p):
            raise ValueError(f"sentence {i}: {len(g)} gold tags but {len(p)} predicted tags")
        gs, ps = set(iob2_spans(g)), set(iob2_spans(p))
        n_gold, n_pred, n_correct = n_gold + len(gs), n_pred + len(ps), n_correct + len(gs & ps)
    precision = n_correct / n_pred if n_pred else 0.0
    recall = n_correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return EntityF1(precision, recall, f1, n_gold, n_pred, n_correct)


@dataclass(frozen=True)
class DisagreementBin:
    """Multi-piece words of one number of (predicted) pieces: how many, and how many of them disagree."""

    pieces: str
    n_words: int
    n_disagree: int

    @property
    def share(self) -> float:
        return error_rate(self.n_disagree, self.n_words)


@dataclass(frozen=True)
class AggregationScore:
    """One aggregation's word labels, scored."""

    method: str
    entities: EntityF1
    n_errors: int
    """Words whose label differs from the gold tag."""
    n_errors_disagree: int
    """Of those, words whose pieces disagree."""
    r: Correlation
    """Pearson r of the word's pieces (the model's tokenizer) and its error, all words."""
    r_ne: Correlation
    """The same over gold NE words."""


@dataclass(frozen=True)
class PieceAgreement:
    """Everything :func:`piece_agreement` measures for one per-piece predictions file."""

    model: str
    n_words: int
    n_multi: int
    """Words with two or more predicted pieces."""
    n_disagree: int
    by_pieces: tuple[DisagreementBin, ...]
    by_pieces_ne: tuple[DisagreementBin, ...]
    by_pieces_other: tuple[DisagreementBin, ...]
    n_agree_errors: int
    """Errors among words whose pieces agree (single-piece words included): the same under every aggregation."""
    aggregations: tuple[AggregationScore, ...]
    n_truncated: int
    """Words with fewer predicted pieces than pieces (cut by a model window)."""
    dataset: str = ""
    """The dataset the file was checked against, as the table names it (``conll2003:test``); ``""``: not checked."""
    subset: str = ""
    """What part of that dataset the file covers (``"first 600 of 3453 sentences"``); ``""``: all of it."""

    @property
    def share_disagree(self) -> float:
        return error_rate(self.n_disagree, self.n_multi)

    @property
    def agree_error_rate(self) -> float:
        return error_rate(self.n_agree_errors, self.n_words - self.n_disagree)

    def disagree_error_rate(self, method: str) -> float:
        return error_rate(self.score(method).n_errors_disagree, self.n_disagree)

    def score(self, method: str) -> AggregationScore:
        return next(a for a in self.aggregations if a.method == method)


def disagrees(word: PredictedWord) -> bool:
    """Whether the word's predicted pieces carry more than one label."""
    return len(set(word.best)) > 1


def _bins(n_pieces: np.ndarray, disagree: np.ndarray) -> tuple[DisagreementBin, ...]:
    b = np.clip(n_pieces, 0, 5)
    n = np.bincount(b, minlength=6)
    d = np.bincount(b, weights=disagree.astype(np.float64), minlength=6)
    return tuple(DisagreementBin(PIECE_BINS[k - 2], int(n[k]), int(d[k])) for k in range(2, 6))


def piece_agreement(
    predictions: PiecePredictions,
    *,
    bootstrap: BootstrapSettings = BootstrapSettings(),
    table: SegmentationTable | None = None,
    dataset: str | None = None,
) -> PieceAgreement:
    """Disagreement, agree/disagree error rates and every aggregation's scores (module docstring).

    With ``table``, the file is first checked against the table's dataset it is for (``dataset``, else the
    table's only one or the one its metadata names) as a per-word predictions file is
    (:func:`~tokstudy.analysis.model_errors.aligned_predictions.align_predictions`): every sentence of the split,
    or of the part its ``subset=first:N`` declares, with the dataset's words and gold tags; the result names that
    dataset and part."""
    on = None if table is None else align_predictions(table, predictions.word_predictions(), dataset=dataset)
    words = [w for s in predictions.sentences for w in s.words]
    gold = [[w.gold for w in s.words] for s in predictions.sentences]
    sentence = np.repeat(np.arange(len(gold)), [len(g) for g in gold])
    n_pred = np.fromiter((len(w.pieces) for w in words), dtype=np.int64, count=len(words))
    n_pieces = np.fromiter((w.n_pieces for w in words), dtype=np.int64, count=len(words))
    disagree = np.fromiter((disagrees(w) for w in words), dtype=bool, count=len(words))
    ne = np.fromiter((w.gold != "O" for w in words), dtype=bool, count=len(words))
    flat_gold = [t for g in gold for t in g]
    scores, agree_errors = [], 0
    for method in AGGREGATIONS:
        tags = word_tags(predictions, method)
        error = np.fromiter((p != g for p, g in zip((t for s in tags for t in s), flat_gold)), bool, len(words))
        agree_errors = int((error & ~disagree).sum())
        x = n_pieces.astype(np.float64)
        scores.append(
            AggregationScore(
                method,
                entity_f1(gold, tags),
                int(error.sum()),
                int((error & disagree).sum()),
                correlation(x, error, sentence, bootstrap),
                correlation(x[ne], error[ne], sentence[ne], bootstrap),
            )
        )
    return PieceAgreement(
        model=predictions.metadata.get("model_name") or predictions.metadata.get("model") or "model",
        n_words=len(words),
        n_multi=int((n_pred >= 2).sum()),
        n_disagree=int(disagree.sum()),
        by_pieces=_bins(n_pred, disagree),
        by_pieces_ne=_bins(n_pred[ne], disagree[ne]),
        by_pieces_other=_bins(n_pred[~ne], disagree[~ne]),
        n_agree_errors=agree_errors,
        aggregations=tuple(scores),
        n_truncated=int((n_pred < n_pieces).sum()),
        dataset=on.dataset if on else "",
        subset=on.subset if on else "",
    )
