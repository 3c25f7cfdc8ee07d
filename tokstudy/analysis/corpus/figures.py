"""Corpus statistics, the client side: the merged sums of :mod:`tokstudy.analysis.corpus.counts` turned into figures
per tokenizer and language (and over all languages), with intervals from a bootstrap of the line buckets.

The resampling (why buckets, not lines, and why the intervals do not depend on how the corpus was cut) is explained
in :mod:`tokstudy.analysis.corpus.counts`, where the buckets are made; :func:`bucket_weights` draws the resamples.

>>> s = bucket_weights(CorpusStatsSettings(n_buckets=4, n_resamples=3, seed=1))
>>> s.shape, s.sum(axis=1).tolist()
((3, 4), [4, 4, 4])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.corpus.counts import (
    ALL,
    BYTES,
    CHARS,
    CONTINUED,
    LINES,
    PIECES,
    PIECES_CONTINUED,
    QUANTITIES,
    UNK,
    WORDS,
    CorpusAggregate,
    CorpusStatsSettings,
    LanguageSums,
)
from tokstudy.analysis.stats.bootstrap import percentile_interval
from tokstudy.analysis.stats.estimates import Estimate
from tokstudy.analysis.stats.intrinsic import renyi_efficiency, shannon_entropy, vocab_utilization


@dataclass(frozen=True)
class LanguageFigures:
    """The figures of one tokenizer on one language (or ``"all"``).

    Attributes:
        fertility: pieces per word.
        continued: % of words cut into 2+ pieces.
        unknown: % of pieces that are the unknown piece.
        pieces_per_continued: pieces per continued word.
        chars_per_piece: characters of the words per piece (compression).
        bytes_per_piece: UTF-8 bytes of the words per piece.
        shannon_entropy: bits, of the piece distribution (point only).
        renyi_efficiency: Rényi entropy / log2 vocabulary size (point only).
        vocab_utilization: share of the vocabulary that occurs (point only).
        n_lines: non-blank lines.
        n_words: words.
        n_pieces: pieces.
    """

    fertility: Estimate
    continued: Estimate
    unknown: Estimate
    pieces_per_continued: Estimate
    chars_per_piece: Estimate
    bytes_per_piece: Estimate
    shannon_entropy: float
    renyi_efficiency: float
    vocab_utilization: float
    n_lines: int
    n_words: int
    n_pieces: int


ESTIMATES = ("fertility", "continued", "unknown", "pieces_per_continued", "chars_per_piece", "bytes_per_piece")
POINTS = ("shannon_entropy", "renyi_efficiency", "vocab_utilization")


@dataclass(frozen=True)
class CorpusStats:
    """Figures of a corpus: ``figures[tokenizer][language]`` (languages sorted, then ``"all"``).

    Attributes:
        figures: the figures.
        aggregate: the merged sums they come from.
        settings: the settings they were computed with.
    """

    figures: dict[str, dict[str, LanguageFigures]]
    aggregate: CorpusAggregate
    settings: CorpusStatsSettings

    def rows(self) -> list[dict]:
        """One row per tokenizer, language and figure: value, low, high (CSV-shaped)."""
        out = []
        nan = float("nan")
        for tok, langs in self.figures.items():
            for lang, f in langs.items():
                row = {"tokenizer": tok, "language": lang}
                for name in ESTIMATES:
                    e = getattr(f, name)
                    out.append({**row, "figure": name, "value": e.value, "low": e.low, "high": e.high})
                for name in (*POINTS, "n_lines", "n_words", "n_pieces"):
                    out.append({**row, "figure": name, "value": getattr(f, name), "low": nan, "high": nan})
        return out


def bucket_weights(settings: CorpusStatsSettings) -> np.ndarray:
    """``(n_resamples, n_buckets)`` multinomial bucket counts, seeded by ``settings.seed`` only."""
    U = settings.n_buckets
    rng = np.random.default_rng([settings.seed, 0x5EED])
    return rng.multinomial(U, np.full(U, 1.0 / U), size=settings.n_resamples).astype(np.int64)


def summarize(aggregate: CorpusAggregate, settings: CorpusStatsSettings) -> CorpusStats:
    """Figures of every tokenizer and language, plus ``"all"`` (all languages together)."""
    weights = bucket_weights(settings) if settings.n_resamples else None
    figures: dict[str, dict[str, LanguageFigures]] = {}
    for tok, langs in aggregate.sums.items():
        merged = LanguageSums(np.zeros((settings.n_buckets, len(QUANTITIES)), np.int64))
        per = {}
        for lang in sorted(langs):
            merged.merge(langs[lang])
            per[lang] = figures_of(langs[lang], aggregate.vocab_sizes[tok], weights, settings)
        per[ALL] = figures_of(merged, aggregate.vocab_sizes[tok], weights, settings)
        figures[tok] = per
    return CorpusStats(figures, aggregate, settings)


def figures_of(s: LanguageSums, vocab_size: int, weights, settings: CorpusStatsSettings) -> LanguageFigures:
    """The figures of one set of sums; ``weights``: :func:`bucket_weights` (``None``: no intervals)."""
    t = s.buckets.sum(0)
    boot = weights @ s.buckets if weights is not None else None
    n_words, n_lines = int(t[WORDS]), int(t[LINES])

    def est(num: int, den: int, scale: float = 1.0) -> Estimate:
        value = scale * t[num] / t[den] if t[den] else float("nan")
        lo = hi = float("nan")
        if boot is not None and t[den]:
            with np.errstate(invalid="ignore", divide="ignore"):
                lo, hi = (scale * x for x in percentile_interval(boot[:, num] / boot[:, den], settings.confidence))
        return Estimate(float(value), float(lo), float(hi), n_words, n_lines)

    # sorted: the histogram's insertion order follows the merge order, and float sums must not
    counts = np.sort(np.fromiter(s.pieces.values(), dtype=np.int64, count=len(s.pieces)))
    has = counts.sum() > 0
    return LanguageFigures(
        fertility=est(PIECES, WORDS),
        continued=est(CONTINUED, WORDS, 100.0),
        unknown=est(UNK, PIECES, 100.0),
        pieces_per_continued=est(PIECES_CONTINUED, CONTINUED),
        chars_per_piece=est(CHARS, PIECES),
        bytes_per_piece=est(BYTES, PIECES),
        shannon_entropy=shannon_entropy(counts) if has else float("nan"),
        renyi_efficiency=renyi_efficiency(counts, vocab_size=vocab_size, alpha=settings.renyi_alpha)
        if has and vocab_size >= 2
        else float("nan"),
        vocab_utilization=vocab_utilization(counts, vocab_size=vocab_size) if has else float("nan"),
        n_lines=n_lines,
        n_words=n_words,
        n_pieces=int(t[PIECES]),
    )
