"""The results of the segmentation statistics: frozen dataclasses, one per kind of figure.

Every figure is an :class:`Estimate` (point value, bootstrap interval, words and sentences behind
it); the larger results group estimates the way Table 4, the summaries and the breakdowns print
them. They are computed by :mod:`tokstudy.analysis.stats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Estimate:
    """A figure with its bootstrap interval.

    Attributes:
        value: the point estimate (over all sentences).
        low: lower bound of the interval (NaN without resamples).
        high: upper bound.
        n_words: words in the subset.
        n_sentences: sentences with at least one such word.
    """

    value: float
    low: float
    high: float
    n_words: int
    n_sentences: int

    def __format__(self, spec: str) -> str:
        # without resamples there is no interval to show
        return format(self.value, spec or ".2f") if np.isnan(self.low) else interval_text(self, spec)


def interval_text(figure, spec: str = "") -> str:
    """``value [low, high]`` of a figure with an interval (an :class:`Estimate`, an odds ratio), each number
    formatted with ``spec`` (default ``.2f``): what ``format(figure, spec)`` shows.

    >>> interval_text(Estimate(1.0, 0.5, 1.25, 10, 2)), interval_text(Estimate(1.0, 0.5, 1.25, 10, 2), ".1f")
    ('1.00 [0.50, 1.25]', '1.0 [0.5, 1.2]')
    """
    spec = spec or ".2f"
    return f"{format(figure.value, spec)} [{format(figure.low, spec)}, {format(figure.high, spec)}]"


#: The coverage of every interval unless a caller asks for another: the sentence bootstrap's
#: (:class:`BootstrapSettings`), Welch's interval of a difference of means, the Wald intervals of the odds ratios
#: and the Wilson intervals of error rates. One value, so that every interval of a report has the same meaning.
CONFIDENCE = 0.95


@dataclass(frozen=True)
class BootstrapSettings:
    """How the intervals were made.

    Attributes:
        n_resamples: bootstrap resamples of sentences (0 = no intervals).
        confidence: interval coverage, e.g. 0.95.
        seed: random seed of the resampling.
    """

    n_resamples: int = 1000
    confidence: float = CONFIDENCE
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_resamples < 0:
            raise ValueError(f"n_resamples must be >= 0, got {self.n_resamples}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")


@dataclass(frozen=True)
class AdditionalSegmentation:
    """One row of Table 4: additional segmentation % of NE, non-NE and all words."""

    tokenizer: str
    """The tokenizer's column name."""
    ne: Estimate
    """Words inside a named entity."""
    non_ne: Estimate
    """Words outside every named entity."""
    all: Estimate
    """Every word."""
    boundary_policy: str
    """How a lone word-boundary piece was counted (:mod:`tokstudy.analysis.boundary`)."""
    bootstrap: BootstrapSettings
    """How the intervals were made."""


@dataclass(frozen=True)
class GroupedEstimates:
    """Additional segmentation % per group (entity type, B/I position, language, ...)."""

    tokenizer: str
    """The tokenizer's column name."""
    by: str
    """What the words are grouped by (``entity_type``, ``position``, ``language``, ...)."""
    subset: str
    """Which words are counted (``ne``, ``non_ne`` or ``all``)."""
    groups: dict[str, Estimate]
    """The figure of each group, by group name."""
    boundary_policy: str
    """How a lone word-boundary piece was counted (:mod:`tokstudy.analysis.boundary`)."""
    bootstrap: BootstrapSettings
    """How the intervals were made."""


@dataclass(frozen=True)
class SubsetSummary:
    """Every segmentation figure for one subset of words."""

    additional_segmentation: Estimate  # %
    fertility: Estimate  # pieces per word
    continued: Estimate  # % of words with >= 2 pieces
    unknown: Estimate  # % of pieces that are unknown
    pieces_per_continued: Estimate  # pieces per continued word
    n_pieces: int
    byte_fallback: Estimate | None = None  # % of pieces that are byte-fallback pieces (<0xE1>); None: not counted
    byte_pieces: Estimate | None = None  # % of pieces that are bytes, not whole characters; None: not counted


@dataclass(frozen=True)
class SegmentationSummary:
    """Every figure, for NE, non-NE and all words, under one tokenizer."""

    tokenizer: str
    ne: SubsetSummary
    non_ne: SubsetSummary
    all: SubsetSummary
    boundary_policy: str
    bootstrap: BootstrapSettings


@dataclass(frozen=True)
class TableStatistics:
    """Everything ``tokstudy stats`` prints, for several tokenizers, from one bootstrap pass."""

    table4: list[AdditionalSegmentation]
    summary: list[SegmentationSummary]
    by: dict[str, list[GroupedEstimates]]
    intrinsic: list = field(default_factory=list)
    """:class:`~tokstudy.analysis.stats.intrinsic_table.IntrinsicSummary` per tokenizer (compression, entropy, ...)."""
