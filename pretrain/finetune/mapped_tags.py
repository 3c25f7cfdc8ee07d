"""Word tags from the per-piece probabilities of a model that names its labels its own way.

The model's softmax at every piece of a word (:func:`pretrain.finetune.predict.predict_piece_probs`) is
projected onto the dataset's tags (:meth:`~pretrain.finetune.label_mapping.LabelMapping.project`) word by word,
left to right: a continuing label (``I-X``, ``E-X``, a bare ``X``) counts as ``I-X`` after a word tagged in an
``X`` entity and as ``B-X`` elsewhere, so every sentence comes out as valid IOB2, the scheme the datasets are
read in, whatever the model's scheme (IOB1, IO, IOBES, BILOU); the tags opened this way are counted. Each
piece's best tag is the tag of the model's best label there, so ``first`` reads exactly the model's argmax at
the word's first piece. The word's tag then comes from its pieces by one of the aggregations of
:func:`tokstudy.analysis.model_errors.piece_agreement.aggregate` (``first``, ``average``, ``max``,
``majority``), the function ``tokstudy pieces`` applies to the per-piece file written from these same
probabilities, so both files tell one story.

With label bigrams, each sentence's Viterbi-best sequence (:func:`pretrain.finetune.decoding.viterbi`) over each
word's distribution (its first piece's, or the average of its pieces') is taken instead, from the projection
that ignores the word before (Viterbi weighs the transitions itself); it is then read as lenient IOB2
(:func:`tokstudy.data.schemes.to_iob2`), and the per-piece probabilities kept are projected after the tags it
chose.

>>> import numpy as np
>>> from pretrain.finetune.label_mapping import map_labels
>>> m = map_labels(["O", "PER"], ["PER"])  # an IO model: a bare type continues an entity
>>> probs = [[np.array([[0.9, 0.1]]), np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([[0.3, 0.7]])]]
>>> w = mapped_words(probs, m)
>>> w.tags, w.n_repaired
((('O', 'B-PER', 'I-PER'),), 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pretrain.finetune.decoding import LabelBigrams, label_bigrams, viterbi
from pretrain.finetune.label_mapping import LabelMapping
from tokstudy.analysis.model_errors.piece_agreement import AGGREGATIONS, aggregate
from tokstudy.data.schemes import to_iob2

#: aggregations that give a word one distribution, as Viterbi decoding needs
VITERBI_AGGREGATIONS = ("first", "average")


@dataclass(frozen=True)
class MappedWords:
    """Every word's tag in the dataset's IOB2 tags, and the per-piece values it was decided from."""

    tags: tuple[tuple[str, ...], ...]
    """One IOB2 tag per word, sentence by sentence."""
    probs: tuple[tuple[np.ndarray, ...], ...]
    """Each word's ``[predicted pieces, tags]`` probabilities over :attr:`LabelMapping.labels`."""
    best: tuple[tuple[tuple[int, ...], ...], ...]
    """Each predicted piece's tag index: the tag of the model's best label at that piece."""
    n_repaired: int
    """Words whose entity was opened by a label that only continues one (see :func:`_opened`)."""
    n_unmapped_pieces: int
    """Pieces whose best model label names no dataset type (read as ``O``)."""
    n_unmapped_words: int
    """Words with at least one such piece."""


def mapped_words(
    piece_probs: Sequence[Sequence[np.ndarray]],
    mapping: LabelMapping,
    *,
    method: str = "first",
    bigrams: LabelBigrams | None = None,
) -> MappedWords:
    """The words' tags from ``piece_probs[s][w]`` (``[pieces, model labels]``), as the module docstring says."""
    if method not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {method!r}; expected one of {AGGREGATIONS}")
    if bigrams is not None and method not in VITERBI_AGGREGATIONS:
        raise ValueError(
            f"Viterbi decoding needs one distribution per word; aggregation {method!r} gives a label, "
            f"expected one of {VITERBI_AGGREGATIONS}"
        )
    unmapped = np.asarray([l in mapping.unmapped for l in mapping.model_labels])
    after = _Projections.of(mapping)
    tags, probs, best, repaired, bad_pieces, bad_words = [], [], [], 0, 0, 0
    for sentence in piece_probs:
        sentence = [np.asarray(p) for p in sentence]
        own = [p.argmax(axis=1) for p in sentence]
        if bigrams is None:
            s_tags, s_probs, s_best = _left_to_right(sentence, own, after, method)
        else:
            s_tags = _viterbi(sentence, mapping, method, bigrams)
            s_probs, s_best = _after(sentence, own, after, s_tags)
        tags.append(tuple(s_tags))
        probs.append(s_probs)
        best.append(s_best)
        repaired += _opened(s_tags, own, mapping)
        hits = [int(unmapped[o].sum()) for o in own]
        bad_pieces += sum(hits)
        bad_words += sum(1 for h in hits if h)
    return MappedWords(tuple(tags), tuple(probs), tuple(best), repaired, bad_pieces, bad_words)


@dataclass(frozen=True)
class _Projections:
    """:meth:`LabelMapping.columns_after` and the projection matrix after each tag, computed once per call."""

    labels: tuple[str, ...]
    columns: dict[str, np.ndarray]
    onto: dict[str, np.ndarray]

    @classmethod
    def of(cls, mapping: LabelMapping) -> "_Projections":
        columns = {t: np.asarray(mapping.columns_after(t), dtype=np.int64) for t in mapping.labels}
        onto = {}
        for t, cols in columns.items():
            onto[t] = np.zeros((len(mapping.model_labels), len(mapping.labels)))
            onto[t][np.arange(len(cols)), cols] = 1
        return cls(mapping.labels, columns, onto)

    def word(self, probs: np.ndarray, own: np.ndarray, previous: str) -> tuple[np.ndarray, tuple[int, ...]]:
        """A word's probabilities over the tags and each piece's best tag, after a word tagged ``previous``."""
        return probs @ self.onto[previous], tuple(int(k) for k in self.columns[previous][own])


def _left_to_right(sentence: list[np.ndarray], own: list[np.ndarray], after: _Projections, method: str):
    """Each word's tag by ``method``, projected after the tag chosen for the word before."""
    tags, probs, best, previous = [], [], [], "O"
    for p, o in zip(sentence, own):
        projected, b = after.word(p, o, previous)
        previous = after.labels[aggregate(projected, method, b)]
        tags.append(previous)
        probs.append(projected)
        best.append(b)
    return tags, tuple(probs), tuple(best)


def _after(sentence: list[np.ndarray], own: list[np.ndarray], after: _Projections, tags: list[str]):
    """The words' probabilities and best tags projected after the tags ``tags`` gives the words before."""
    words = [after.word(p, o, previous) for p, o, previous in zip(sentence, own, ["O"] + list(tags[:-1]))]
    return tuple(w[0] for w in words), tuple(w[1] for w in words)


def _opened(tags: list[str], own: list[np.ndarray], mapping: LabelMapping) -> int:
    """Words tagged ``B-X`` whose first piece's model label only continues an ``X`` entity (``I-X``, ``E-X``, a
    bare ``X``): where reading the model's scheme as IOB2 opened the entity."""
    return sum(1 for t, o in zip(tags, own) if t.startswith("B-") and mapping.targets[int(o[0])] == "I-" + t[2:])


def _viterbi(sentence: list[np.ndarray], mapping: LabelMapping, method: str, bigrams: LabelBigrams) -> list[str]:
    if not sentence:
        return []
    projected = [mapping.project(p) for p in sentence]
    rows = [p[0] if method == "first" else p.mean(axis=0) for p in projected]
    # a tag the model cannot give (B- of an IO model) has probability 0: a finite floor keeps Viterbi's sums finite
    ids = viterbi(np.log(np.maximum(np.stack(rows), 1e-12)), bigrams)
    return list(to_iob2([mapping.labels[k] for k in ids], "IOB2", lenient=True)[0])


def tag_bigrams(train_tags: Sequence[Sequence[str]], mapping: LabelMapping) -> LabelBigrams:
    """Label bigrams (:func:`~pretrain.finetune.decoding.label_bigrams`) of the training split's tags over
    :attr:`LabelMapping.labels`; a training tag the model cannot predict counts as ``O`` (the sentence is then
    repaired as lenient IOB2, as predictions are)."""
    index = {t: i for i, t in enumerate(mapping.labels)}
    known = set(mapping.labels)
    sequences = []
    for tags in train_tags:
        fixed, _ = to_iob2([t if t in known else "O" for t in tags], "IOB2", lenient=True)
        sequences.append([index[t] for t in fixed])
    return label_bigrams(sequences, len(mapping.labels))
