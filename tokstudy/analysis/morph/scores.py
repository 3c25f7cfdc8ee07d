"""How a tokenizer's pieces fall on gold morpheme boundaries: MorphScore and boundary precision / recall / F1.

Definitions (each word of the gold file counts once, as its line; its piece boundaries are those of
:func:`~tokstudy.analysis.morph.pieces.piece_boundaries`, the word as the tokenizer sees it in running text):

* **MorphScore** (Arnett & Bergen 2024, https://github.com/catherinearnett/morphscore): a word scores 1
  when a piece boundary falls on its morpheme boundary of interest, whatever other boundaries it has,
  else 0; words the tokenizer leaves whole (no piece boundary inside them) are *excluded*, so as not to
  penalise a vocabulary that holds the whole word; MorphScore is the mean over the words scored. Only
  MorphScore's files name a boundary of interest; for SIGMORPHON files it is not defined (``None``).
* **Boundary precision / recall / F1** over all gold boundaries, micro-averaged over words: precision is
  the piece boundaries that are gold boundaries over all piece boundaries, recall the gold boundaries
  that are piece boundaries over all gold boundaries, F1 their harmonic mean. Words left whole count
  (their gold boundaries are missed). With MorphScore's files the gold has only the boundary of
  interest, so precision there counts every other cut as wrong: a lower bound.
* Words whose pieces cannot be placed in the word (*unaligned*: two unknown pieces, a normaliser that
  changed the word's length) are left out of both and counted.
* **By frequency band**, when a corpus is given: the same figures over the words whose frequency in the
  corpus (exact string match) falls in each band (``0`` = unseen, ``1-9``, ``10-99``, ...).

>>> from tokstudy.data.segmentations import GoldSegmentations, GoldWord
>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Halves(Segmenter):
...     name, kind, vocab_size = "halves", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists([[w[: len(w) // 2], w[len(w) // 2 :]] for w in words])
>>> gold = GoldSegmentations((GoldWord("played", (4,), 4), GoldWord("cats", (3,), 3)), "g.csv", "morphscore", "en")
>>> r = morph_scores(gold, Halves())
>>> r.morphscore.value, r.boundaries.precision, r.boundaries.recall
(0.0, 0.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.morph.pieces import char_to_byte_offsets, piece_boundaries
from tokstudy.data.segmentations import GoldSegmentations
from tokstudy.tokenization.base import Segmenter

#: default lower edges of the frequency bands after ``0`` (unseen): 1-9, 10-99, 100-999, 1000+
BAND_EDGES = (1, 10, 100, 1000)
#: how words are encoded, stated beside every result
ENCODING_NOTE = (
    "each gold word is segmented as the tokenizer sees it in running text (after a space: SentencePiece's "
    "'▁', byte-level BPE's 'Ġ'); that marker is the space before the word, so a cut right after it is not "
    "a cut of the word"
)


@dataclass(frozen=True)
class MorphScoreCounts:
    """MorphScore's ingredients.

    Attributes:
        n_scored: words scored (a piece boundary inside them).
        n_hit: of those, words with a piece boundary on the boundary of interest.
        n_whole: words the tokenizer leaves whole, excluded as MorphScore's authors do.
        n_unaligned: words whose pieces could not be placed, excluded.
    """

    n_scored: int
    n_hit: int
    n_whole: int
    n_unaligned: int

    @property
    def value(self) -> float:
        """MorphScore: ``n_hit / n_scored`` (NaN without scored words)."""
        return self.n_hit / self.n_scored if self.n_scored else float("nan")


@dataclass(frozen=True)
class BoundaryCounts:
    """Boundary precision / recall / F1 and their counts (unaligned words left out).

    Attributes:
        n_words: words counted.
        true_positive: piece boundaries on a gold boundary.
        predicted: all piece boundaries inside the words.
        gold: all gold boundaries.
        n_unaligned: words left out, their pieces could not be placed.
    """

    n_words: int
    true_positive: int
    predicted: int
    gold: int
    n_unaligned: int = 0

    @property
    def precision(self) -> float:
        return self.true_positive / self.predicted if self.predicted else float("nan")

    @property
    def recall(self) -> float:
        return self.true_positive / self.gold if self.gold else float("nan")

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r > 0 else (0.0 if p == p and r == r else float("nan"))


@dataclass(frozen=True)
class BandScores:
    """The figures over the words of one frequency band (``label`` ``"0"``, ``"1-9"``, ``"1000+"``)."""

    label: str
    n_words: int
    morphscore: MorphScoreCounts | None
    boundaries: BoundaryCounts


@dataclass(frozen=True)
class MorphResult:
    """One tokenizer on one gold file.

    Attributes:
        tokenizer: the tokenizer's name.
        language: the gold file's language.
        source: the gold file.
        format: ``"sigmorphon"`` or ``"morphscore"``.
        n_words: gold words.
        morphscore: ``None`` where the gold names no boundary of interest (SIGMORPHON).
        boundaries: precision / recall / F1 over all gold boundaries.
        bands: by frequency band in the corpus given (empty without one).
        boundary_policy: the tokenizer's boundary policy sentence.
        encoding: how the words were encoded (:data:`ENCODING_NOTE`).
    """

    tokenizer: str
    language: str
    source: str
    format: str
    n_words: int
    morphscore: MorphScoreCounts | None
    boundaries: BoundaryCounts
    bands: tuple[BandScores, ...] = ()
    boundary_policy: str = ""
    encoding: str = ENCODING_NOTE


@dataclass(frozen=True)
class _PerWord:
    """Per gold word: whether aligned, left whole, hit at the boundary of interest, and boundary counts."""

    aligned: np.ndarray
    whole: np.ndarray
    hit: np.ndarray
    tp: np.ndarray
    predicted: np.ndarray
    gold: np.ndarray


def _per_word(gold: GoldSegmentations, segmenter: Segmenter) -> _PerWord:
    """Each distinct word segmented once (one call), then compared with each gold line's boundaries."""
    distinct = list(dict.fromkeys(w.word for w in gold.words))
    seg = segmenter.segment(distinct)
    o, byte = seg.offsets, seg.byte_flags
    cuts = {}
    for i, word in enumerate(distinct):
        a, b = int(o[i]), int(o[i + 1])
        cuts[word] = piece_boundaries(word, seg.pieces[a:b], segmenter.context, unk=seg.unk[a:b], byte=byte[a:b])
    n = len(gold.words)
    aligned, whole, hit = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    tp, predicted, n_gold = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    for k, w in enumerate(gold.words):
        n_gold[k] = len(w.boundaries)
        found = cuts[w.word]
        if found is None:
            continue
        aligned[k], whole[k], predicted[k] = True, not found, len(found)
        truth = set(char_to_byte_offsets(w.word, w.boundaries))
        tp[k] = len(truth.intersection(found))
        if w.interest is not None:
            hit[k] = char_to_byte_offsets(w.word, (w.interest,))[0] in found
    return _PerWord(aligned, whole, hit, tp, predicted, n_gold)


def _morphscore(p: _PerWord, mask: np.ndarray) -> MorphScoreCounts:
    scored = mask & p.aligned & ~p.whole
    return MorphScoreCounts(
        int(scored.sum()),
        int((scored & p.hit).sum()),
        int((mask & p.aligned & p.whole).sum()),
        int((mask & ~p.aligned).sum()),
    )


def _boundaries(p: _PerWord, mask: np.ndarray) -> BoundaryCounts:
    m = mask & p.aligned
    return BoundaryCounts(
        int(m.sum()),
        int(p.tp[m].sum()),
        int(p.predicted[m].sum()),
        int(p.gold[m].sum()),
        int((mask & ~p.aligned).sum()),
    )


def band_labels(edges: Sequence[int] = BAND_EDGES) -> tuple[str, ...]:
    """``("0", "1-9", "10-99", "100-999", "1000+")`` for the default edges.

    >>> band_labels((1, 5))
    ('0', '1-4', '5+')
    """
    edges = list(edges)
    if not edges or edges[0] < 1 or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"band edges must be increasing integers from 1, got {edges}")
    labels = ["0"] + [f"{a}-{b - 1}" if b - 1 > a else str(a) for a, b in zip(edges, edges[1:])]
    return tuple(labels + [f"{edges[-1]}+"])


def morph_scores(
    gold: GoldSegmentations,
    segmenter: Segmenter,
    *,
    corpus_counts: Mapping[str, int] | None = None,
    band_edges: Sequence[int] = BAND_EDGES,
) -> MorphResult:
    """MorphScore and boundary precision / recall / F1 of ``segmenter`` on ``gold``; by frequency band in the
    corpus whose word counts are ``corpus_counts`` (a ``Counter`` of its words) when given."""
    labels = band_labels(band_edges)
    p = _per_word(gold, segmenter)
    everything = np.ones(len(gold.words), bool)
    has_interest = gold.format == "morphscore"
    bands = ()
    if corpus_counts is not None:
        freq = np.asarray([corpus_counts.get(w.word, 0) for w in gold.words], dtype=np.int64)
        band = np.searchsorted(np.asarray(band_edges), freq, side="right")
        bands = tuple(
            BandScores(
                label,
                int((band == b).sum()),
                _morphscore(p, band == b) if has_interest else None,
                _boundaries(p, band == b),
            )
            for b, label in enumerate(labels)
        )
    return MorphResult(
        tokenizer=segmenter.name,
        language=gold.language,
        source=gold.source,
        format=gold.format,
        n_words=len(gold.words),
        morphscore=_morphscore(p, everything) if has_interest else None,
        boundaries=_boundaries(p, everything),
        bands=bands,
        boundary_policy=segmenter.describe_boundary_policy(),
    )


def morph_table(
    golds: Sequence[GoldSegmentations],
    segmenters: Sequence[Segmenter],
    *,
    corpus_counts: Mapping[str, int] | None = None,
    band_edges: Sequence[int] = BAND_EDGES,
) -> tuple[MorphResult, ...]:
    """:func:`morph_scores` of every (gold file, tokenizer), gold file by gold file."""
    return tuple(
        morph_scores(g, s, corpus_counts=corpus_counts, band_edges=band_edges) for g in golds for s in segmenters
    )
