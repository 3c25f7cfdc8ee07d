"""Label sequences for token tasks: each word's best label on its own (``argmax``), or the best sequence (``viterbi``).

A token classifier scores every word independently, so nothing stops it from opening a new entity on the second
word of a name: a tiny model labels "Diego Dominguez" ``B-PER B-PER`` (two persons) as readily as
``B-PER I-PER``. ``viterbi`` decoding adds transition scores, as a CRF layer has, but counted from the training
split's label bigrams instead of learned, so the fine-tuned model stays a plain ``AlbertForTokenClassification``.
The sequence chosen for a sentence maximises

    sum_t log p(y_t | sentence) + log P(y_0 | start) + sum_t log P(y_t | y_{t-1})

where ``p`` is the model's softmax at each word's first piece and ``P`` are add-``smoothing`` estimates from the
training labels. A transition never seen in training (``O -> I-PER`` in IOB2) keeps a small probability, so a
model sure enough of it still wins.

The model's ``p(y | x)`` already contains the label prior ``P(y)`` that the transitions model again. With
``prior_scale`` > 0 each word's score is ``log p(y | x) - prior_scale * log P(y)``: 1 turns posteriors into
scaled likelihoods as in hybrid neural/HMM speech recognition (Bourlard and Morgan), values between 0 and 1
divide out part of the prior. With the cpu study's tiny model, 0.5 scored best of 0, 0.5 and 1 on the dev splits
of CoNLL-2003, SNIPS slots and CoNLL-2002 es (benchmarks/results/study.md).

>>> b = label_bigrams([[0, 1, 2], [0, 0]], n_labels=3)  # labels O, B-PER, I-PER
>>> import numpy as np
>>> viterbi(np.log([[0.1, 0.8, 0.1], [0.1, 0.5, 0.4]]), b)  # B-PER B-PER by argmax
[1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from pretrain.finetune.config import DECODINGS  # noqa: F401  (FinetuneConfig.decode's choices, re-exported)


@dataclass(frozen=True)
class LabelBigrams:
    """Log-probabilities of the first label of a sentence (``start[j]``) and of label ``j`` after label ``i``
    (``transition[i, j]``), each row a distribution."""

    start: np.ndarray
    transition: np.ndarray
    prior: np.ndarray | None = None
    """Log-frequency of each label in training (``prior[j]``); None: not known (``prior_scale`` must be 0)."""
    prior_scale: float = 0.0
    """How much of the label prior is divided out of the model's log-probabilities (module docstring)."""

    def to_dict(self) -> dict:
        """Plain JSON (saved with a fine-tuned model, so that ``pretrain evaluate`` decodes the same way)."""
        out = {"start": self.start.tolist(), "transition": self.transition.tolist(), "prior_scale": self.prior_scale}
        return out | ({} if self.prior is None else {"prior": self.prior.tolist()})

    @classmethod
    def from_dict(cls, data: dict) -> "LabelBigrams":
        start, transition = np.asarray(data["start"], dtype=float), np.asarray(data["transition"], dtype=float)
        prior = None if data.get("prior") is None else np.asarray(data["prior"], dtype=float)
        n = start.shape[0]
        if start.ndim != 1 or transition.shape != (n, n) or (prior is not None and prior.shape != (n,)):
            raise ValueError(f"label bigrams: start {start.shape} and transition {transition.shape} do not match")
        return cls(start, transition, prior, float(data.get("prior_scale", 0.0)))

    def __post_init__(self) -> None:
        if self.prior_scale and self.prior is None:
            raise ValueError(f"prior_scale={self.prior_scale} needs the label prior")


def label_bigrams(
    sequences: Iterable[Sequence[int]], n_labels: int, *, smoothing: float = 1.0, prior_scale: float = 0.0
) -> LabelBigrams:
    """Add-``smoothing`` estimates of the start, transition and label distributions from label-id sequences."""
    if smoothing <= 0:
        raise ValueError(f"smoothing={smoothing} must be > 0 (a zero probability would forbid a label outright)")
    if not 0 <= prior_scale <= 1:
        raise ValueError(f"prior_scale={prior_scale} must be in [0, 1]")
    start = np.full(n_labels, smoothing, dtype=float)
    counts = np.full((n_labels, n_labels), smoothing, dtype=float)
    labels = np.full(n_labels, smoothing, dtype=float)
    for seq in sequences:
        ids = np.asarray(seq, dtype=np.int64)
        if ids.size == 0:
            continue
        if ids.min() < 0 or ids.max() >= n_labels:
            raise ValueError(f"label ids must be in [0, {n_labels}), got {ids.min()}..{ids.max()}")
        start[ids[0]] += 1
        np.add.at(counts, (ids[:-1], ids[1:]), 1)
        labels += np.bincount(ids, minlength=n_labels)
    return LabelBigrams(
        np.log(start / start.sum()),
        np.log(counts / counts.sum(axis=1, keepdims=True)),
        np.log(labels / labels.sum()),
        float(prior_scale),
    )


def viterbi(emissions: np.ndarray, bigrams: LabelBigrams) -> list[int]:
    """The label ids maximising the score in the module docstring; ``emissions`` is ``[words, labels]`` of
    log-probabilities. Ties go to the lower label id."""
    emissions = np.asarray(emissions, dtype=float)
    n, n_labels = emissions.shape if emissions.ndim == 2 else (0, 0)
    if emissions.ndim != 2 or n_labels != bigrams.start.shape[0]:
        raise ValueError(f"emissions {emissions.shape} do not match {bigrams.start.shape[0]} labels")
    if n == 0:
        return []
    if bigrams.prior_scale:
        emissions = emissions - bigrams.prior_scale * bigrams.prior
    score = bigrams.start + emissions[0]
    back = np.empty((n, n_labels), dtype=np.int64)
    for t in range(1, n):
        cand = score[:, None] + bigrams.transition  # [previous, current]
        back[t] = cand.argmax(axis=0)
        score = cand[back[t], np.arange(n_labels)] + emissions[t]
    best = [int(score.argmax())]
    for t in range(n - 1, 0, -1):
        best.append(int(back[t, best[-1]]))
    return best[::-1]
