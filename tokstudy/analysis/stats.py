"""Segmentation statistics over the per-word table: pure functions returning frozen dataclasses.

Definitions (over a set of words, e.g. the words inside gold entities):

* **additional segmentation %** = ``100 * (pieces / words - 1)`` (the mALBERT paper's Table 4);
* **fertility** = ``pieces / words``;
* **continued words %** = ``100 * words with >= 2 pieces / words``;
* **unknown pieces %** = ``100 * unknown pieces / pieces``;
* **pieces per continued word** = ``pieces of continued words / continued words``.

Subsets: ``ne`` = words inside a gold entity, ``non_ne`` = labelled words outside
entities, ``all`` = every word. Each figure carries a sentence-bootstrap
confidence interval (:mod:`tokstudy.analysis.bootstrap`), and each result states
the tokenizer's boundary policy (how a lone ``▁`` piece was counted).

>>> # t = segmentation_table([dataset], [tokenizer])
>>> # additional_segmentation(t).ne.value   # e.g. 120.59 (%)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.bootstrap import bootstrap_ratios, sentence_sums
from tokstudy.analysis.table import POSITION_NAMES, SegmentationTable

SUBSETS = ("ne", "non_ne", "all")
GROUPINGS = ("entity_type", "position", "language", "dataset", "split")


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
        spec = spec or ".2f"
        if np.isnan(self.low):
            return format(self.value, spec)
        return f"{format(self.value, spec)} [{format(self.low, spec)}, {format(self.high, spec)}]"

    def as_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class BootstrapSettings:
    """How the intervals were made.

    Attributes:
        n_resamples: bootstrap resamples of sentences (0 = no intervals).
        confidence: interval coverage, e.g. 0.95.
        seed: random seed of the resampling.
    """

    n_resamples: int = 1000
    confidence: float = 0.95
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
    ne: Estimate
    non_ne: Estimate
    all: Estimate
    boundary_policy: str
    bootstrap: BootstrapSettings


@dataclass(frozen=True)
class GroupedEstimates:
    """Additional segmentation % per group (entity type, B/I position, language, ...)."""

    tokenizer: str
    by: str
    subset: str
    groups: dict[str, Estimate]
    boundary_policy: str
    bootstrap: BootstrapSettings


@dataclass(frozen=True)
class SubsetSummary:
    """Every segmentation figure for one subset of words."""

    additional_segmentation: Estimate  # %
    fertility: Estimate  # pieces per word
    continued: Estimate  # % of words with >= 2 pieces
    unknown: Estimate  # % of pieces that are unknown
    pieces_per_continued: Estimate  # pieces per continued word
    n_pieces: int


@dataclass(frozen=True)
class SegmentationSummary:
    """Every figure, for NE, non-NE and all words, under one tokenizer."""

    tokenizer: str
    ne: SubsetSummary
    non_ne: SubsetSummary
    all: SubsetSummary
    boundary_policy: str
    bootstrap: BootstrapSettings


def subset_mask(table: SegmentationTable, subset: str) -> np.ndarray:
    """Boolean row mask of ``"ne"``, ``"non_ne"`` or ``"all"`` words."""
    if subset == "ne":
        return table.inside
    if subset == "non_ne":
        return table.labelled & ~table.inside
    if subset == "all":
        return np.ones(len(table), dtype=bool)
    raise ValueError(f"unknown subset {subset!r}; expected one of {SUBSETS}")


def _settings(n_resamples: int, confidence: float, seed: int) -> BootstrapSettings:
    return BootstrapSettings(n_resamples, confidence, seed)


def _estimates(table, group, n_groups, quantities, settings, transforms) -> list[list[Estimate]]:
    """Ratio estimates ``sum(num)/sum(den)`` per group for each (num, den) row column pair.

    ``group``: int code per row (-1 = left out). Returns ``[quantity][group]``.
    """
    S = table.n_sentences
    nums = [sentence_sums(n, table.sentence, S, group, n_groups) for n, _ in quantities]
    dens = [sentence_sums(d, table.sentence, S, group, n_groups) for _, d in quantities]
    words = sentence_sums(np.ones(len(table)), table.sentence, S, group, n_groups)
    boot = bootstrap_ratios(
        np.concatenate(nums, axis=1),
        np.concatenate(dens, axis=1),
        n_resamples=settings.n_resamples,
        seed=settings.seed,
        confidence=settings.confidence,
    )
    n_words = words.sum(0)
    n_sent = (words > 0).sum(0)
    out = []
    for q, f in enumerate(transforms):
        row = []
        for g in range(n_groups):
            c = q * n_groups + g
            row.append(
                Estimate(
                    float(f(boot.point[c])),
                    float(f(boot.low[c])),
                    float(f(boot.high[c])),
                    int(n_words[g]),
                    int(n_sent[g]),
                )
            )
        out.append(row)
    return out


def _pct_extra(r):
    return 100.0 * (r - 1.0)


def _pct(r):
    return 100.0 * r


def _same(r):
    return r


def additional_segmentation(
    table: SegmentationTable,
    tokenizer: str | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> AdditionalSegmentation:
    """Table 4: additional segmentation % of NE, non-NE and all words, with bootstrap CIs.

    ``tokenizer`` may be omitted when the table has exactly one.
    """
    settings = _settings(n_resamples, confidence, seed)
    col = table.column(tokenizer)
    group = np.full(len(table), 1, np.int8)  # non-NE
    group[table.inside] = 0
    group[~table.labelled] = -1
    ones = np.ones(len(table))
    # two groups (NE, non-NE) plus "all" as a second quantity with a single group
    ne_non = _estimates(table, group.astype(np.int64), 2, [(col.n_pieces, ones)], settings, [_pct_extra])[0]
    every = _estimates(table, None, 1, [(col.n_pieces, ones)], settings, [_pct_extra])[0][0]
    return AdditionalSegmentation(col.name, ne_non[0], ne_non[1], every, col.boundary_policy, settings)


def compare_tokenizers(table: SegmentationTable, tokenizers=None, **kwargs) -> list[AdditionalSegmentation]:
    """Table 4 with several tokenizers side by side (all of the table's by default)."""
    return [additional_segmentation(table, name, **kwargs) for name in (tokenizers or table.tokenizer_names)]


def group_codes(table: SegmentationTable, by: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """Row codes and group names for a grouping in :data:`GROUPINGS`."""
    if by == "entity_type":
        return table.entity_type_code.astype(np.int64), table.entity_types
    if by == "position":
        return table.position.astype(np.int64), POSITION_NAMES
    if by == "language":
        return table.language_code.astype(np.int64), table.languages
    if by == "dataset":
        return table.dataset_code.astype(np.int64), table.datasets
    if by == "split":
        return table.split_code.astype(np.int64), table.splits
    raise ValueError(f"unknown grouping {by!r}; expected one of {GROUPINGS}")


def additional_segmentation_by(
    table: SegmentationTable,
    tokenizer: str | None = None,
    by: str = "entity_type",
    *,
    subset: str = "all",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> GroupedEstimates:
    """Additional segmentation % per entity type, B/I/O position, language, dataset or split.

    ``subset`` restricts the words first (e.g. ``by="language", subset="ne"``).
    Groups without words are left out.
    """
    settings = _settings(n_resamples, confidence, seed)
    col = table.column(tokenizer)
    codes, names = group_codes(table, by)
    codes = np.where(subset_mask(table, subset), codes, -1)
    ests = _estimates(table, codes, len(names), [(col.n_pieces, np.ones(len(table)))], settings, [_pct_extra])[0]
    groups = {name: e for name, e in zip(names, ests) if e.n_words > 0}
    return GroupedEstimates(col.name, by, subset, groups, col.boundary_policy, settings)


def segmentation_summary(
    table: SegmentationTable,
    tokenizer: str | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> SegmentationSummary:
    """Additional segmentation, fertility, continued words, unknown pieces and pieces per
    continued word, for NE, non-NE and all words, each with a bootstrap CI."""
    settings = _settings(n_resamples, confidence, seed)
    col = table.column(tokenizer)
    pieces = col.n_pieces.astype(np.float64)
    ones = np.ones(len(table))
    continued = (col.n_pieces >= 2).astype(np.float64)
    quantities = [
        (pieces, ones),
        (pieces, ones),
        (continued, ones),
        (col.n_unk.astype(np.float64), pieces),
        (pieces * continued, continued),
    ]
    transforms = [_pct_extra, _same, _pct, _pct, _same]
    out = {}
    for subset in SUBSETS:
        group = np.where(subset_mask(table, subset), 0, -1).astype(np.int64)
        e = _estimates(table, group, 1, quantities, settings, transforms)
        out[subset] = SubsetSummary(
            additional_segmentation=e[0][0],
            fertility=e[1][0],
            continued=e[2][0],
            unknown=e[3][0],
            pieces_per_continued=e[4][0],
            n_pieces=int(pieces[group == 0].sum()),
        )
    return SegmentationSummary(col.name, out["ne"], out["non_ne"], out["all"], col.boundary_policy, settings)
