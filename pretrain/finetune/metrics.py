"""Scores: seqeval entity-level precision/recall/F1 (default and strict IOB2), accuracy.

Pure functions over label sequences; nothing here reads files or prints.

* ``mode="default"`` is seqeval's default, which follows conlleval: an ``I-X`` that
  does not continue an ``X`` entity starts one; an entity is correct when its type and
  both boundaries match a gold entity.
* ``mode="strict"`` is seqeval's strict IOB2 mode: only well-formed entities (starting
  with ``B-``) count, so ill-formed predicted chunks are errors instead of being repaired.

>>> s = entity_scores([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "B-LOC"]])
>>> round(s.f1, 4), s.n_gold, s.n_pred, s.per_type["PER"].f1
(0.6667, 1, 2, 1.0)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

MODES = ("default", "strict")


@dataclass(frozen=True)
class TypeScores:
    """Precision, recall, F1 and gold count (support) of one entity type."""

    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class EntityScores:
    """Entity-level micro scores plus per-type scores.

    Attributes:
        precision, recall, f1: micro-averaged over all entities (0 when undefined).
        n_gold, n_pred: entities in the gold and predicted sequences.
        per_type: type -> :class:`TypeScores`.
        mode: ``default`` or ``strict``.
    """

    precision: float
    recall: float
    f1: float
    n_gold: int
    n_pred: int
    per_type: dict
    mode: str = "default"

    def to_dict(self) -> dict:
        return asdict(self)


def entity_scores(
    gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]], *, mode: str = "default"
) -> EntityScores:
    """seqeval micro scores over sentences of IOB2 tags (``mode``: ``default`` or ``strict``)."""
    # deferred: seqeval (~2 s, scikit-learn), only when entities are scored
    from seqeval.metrics import classification_report
    from seqeval.metrics.sequence_labeling import get_entities
    from seqeval.scheme import IOB2, Entities

    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: expected one of {MODES}")
    gold, pred = [list(s) for s in gold], [list(s) for s in pred]
    _check_shapes(gold, pred)
    kwargs = {"mode": "strict", "scheme": IOB2} if mode == "strict" else {}
    if mode == "strict":
        n_gold = sum(len(s) for s in Entities(gold, IOB2).entities)
        n_pred = sum(len(s) for s in Entities(pred, IOB2).entities)
    else:
        n_gold, n_pred = len(get_entities(gold)), len(get_entities(pred))
    if n_gold == 0 and n_pred == 0:
        return EntityScores(0.0, 0.0, 0.0, 0, 0, {}, mode)
    report = classification_report(gold, pred, output_dict=True, zero_division=0, **kwargs)
    micro = report["micro avg"]
    per_type = {
        t: TypeScores(float(r["precision"]), float(r["recall"]), float(r["f1-score"]), int(r["support"]))
        for t, r in report.items()
        if not t.endswith(" avg")
    }
    return EntityScores(
        float(micro["precision"]), float(micro["recall"]), float(micro["f1-score"]), n_gold, n_pred, per_type, mode
    )


def token_accuracy(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> float:
    """Fraction of words whose predicted tag equals the gold tag."""
    _check_shapes(gold, pred)
    total = sum(len(s) for s in gold)
    if total == 0:
        raise ValueError("token_accuracy: no words")
    return sum(g == p for gs, ps in zip(gold, pred) for g, p in zip(gs, ps)) / total


def accuracy(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Fraction of sentences whose predicted label equals the gold label."""
    if len(gold) != len(pred):
        raise ValueError(f"accuracy: {len(gold)} gold labels but {len(pred)} predictions")
    if not gold:
        raise ValueError("accuracy: no labels")
    return sum(g == p for g, p in zip(gold, pred)) / len(gold)


def _check_shapes(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sentences but {len(pred)} predicted sentences")
    for i, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p):
            raise ValueError(f"sentence {i}: {len(g)} gold tags but {len(p)} predicted tags")
