"""Label sequences for token tasks: each word's best label on its own (``argmax``), or the best sequence (``viterbi``).

A token classifier scores every word independently, so nothing stops it from opening a new entity on the second
word of a name: a tiny model labels "Diego Dominguez" ``B-PER B-PER`` (two persons) as readily as
``B-PER I-PER``. ``viterbi`` decoding adds what a CRF layer would learn, without changing the model (the
fine-tuned model stays a plain ``AlbertForTokenClassification``): the label bigrams of the training split. The
sequence chosen for a sentence maximises

    sum_t log p(y_t | sentence) + log P(y_0 | start) + sum_t log P(y_t | y_{t-1})

where ``p`` is the model's softmax at each word's first piece and ``P`` are add-``smoothing`` estimates from the
training labels. A transition never seen in training (``O -> I-PER`` in IOB2) keeps a small probability, so a
model sure enough of it still wins.

>>> b = label_bigrams([[0, 1, 2], [0, 0]], n_labels=3)  # labels O, B-PER, I-PER
>>> import numpy as np
>>> viterbi(np.log([[0.1, 0.8, 0.1], [0.1, 0.5, 0.4]]), b)  # B-PER B-PER by argmax
[1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

#: how a token task turns the model's scores into labels (FinetuneConfig.decode)
DECODINGS = ("argmax", "viterbi")


@dataclass(frozen=True)
class LabelBigrams:
    """Log-probabilities of the first label of a sentence (``start[j]``) and of label ``j`` after label ``i``
    (``transition[i, j]``), each row a distribution."""

    start: np.ndarray
    transition: np.ndarray

    def to_dict(self) -> dict:
        """Plain JSON (saved with a fine-tuned model, so that ``pretrain evaluate`` decodes the same way)."""
        return {"start": self.start.tolist(), "transition": self.transition.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> "LabelBigrams":
        start, transition = np.asarray(data["start"], dtype=float), np.asarray(data["transition"], dtype=float)
        n = start.shape[0]
        if start.ndim != 1 or transition.shape != (n, n):
            raise ValueError(f"label bigrams: start {start.shape} and transition {transition.shape} do not match")
        return cls(start, transition)


def label_bigrams(sequences: Iterable[Sequence[int]], n_labels: int, *, smoothing: float = 1.0) -> LabelBigrams:
    """Add-``smoothing`` estimates of the start and transition distributions from label-id sequences."""
    if smoothing <= 0:
        raise ValueError(f"smoothing={smoothing} must be > 0 (a zero probability would forbid a label outright)")
    start = np.full(n_labels, smoothing, dtype=float)
    counts = np.full((n_labels, n_labels), smoothing, dtype=float)
    for seq in sequences:
        ids = np.asarray(seq, dtype=np.int64)
        if ids.size == 0:
            continue
        if ids.min() < 0 or ids.max() >= n_labels:
            raise ValueError(f"label ids must be in [0, {n_labels}), got {ids.min()}..{ids.max()}")
        start[ids[0]] += 1
        np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return LabelBigrams(np.log(start / start.sum()), np.log(counts / counts.sum(axis=1, keepdims=True)))


def viterbi(emissions: np.ndarray, bigrams: LabelBigrams) -> list[int]:
    """The label ids maximising the score in the module docstring; ``emissions`` is ``[words, labels]`` of
    log-probabilities. Ties go to the lower label id."""
    emissions = np.asarray(emissions, dtype=float)
    n, n_labels = emissions.shape if emissions.ndim == 2 else (0, 0)
    if emissions.ndim != 2 or n_labels != bigrams.start.shape[0]:
        raise ValueError(f"emissions {emissions.shape} do not match {bigrams.start.shape[0]} labels")
    if n == 0:
        return []
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
