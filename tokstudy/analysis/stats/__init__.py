"""Segmentation statistics over the per-word table: pure functions returning frozen dataclasses.

Definitions (over a set of words, e.g. the words inside gold entities):

* **additional segmentation %** = ``100 * (pieces / words - 1)`` (the mALBERT paper's Table 4);
* **fertility** = ``pieces / words``;
* **continued words %** = ``100 * words with >= 2 pieces / words``;
* **unknown pieces %** = ``100 * unknown pieces / pieces``;
* **byte-fallback pieces %** = ``100 * byte-fallback pieces (<0xE1>) / pieces``: where it is
  high the pieces spell UTF-8 bytes, and the other figures measure bytes, not segmentation;
* **pieces per continued word** = ``pieces of continued words / continued words``.

Subsets: ``ne`` = words inside a gold entity, ``non_ne`` = labelled words outside
entities, ``all`` = every word. Each figure carries a sentence-bootstrap
confidence interval (:mod:`tokstudy.analysis.stats.bootstrap`), and each result states
the tokenizer's boundary policy (how a lone ``▁`` piece was counted).

Each public function registers its figures in one :class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch`
through a *plan* (a small dataclass naming the figures it asked for), runs the batch once, and
lets the plan assemble its result from the estimates. :func:`table_statistics` puts every plan of
every tokenizer into one batch, so one set of resamples serves all figures.

>>> # t = segmentation_table([dataset], [tokenizer])
>>> # additional_segmentation(t).ne.value   # e.g. 120.59 (%)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.stats.estimates import (  # noqa: F401  (the result types are part of this module's API)
    AdditionalSegmentation,
    BootstrapSettings,
    Estimate,
    GroupedEstimates,
    SegmentationSummary,
    SubsetSummary,
    TableStatistics,
)
from tokstudy.analysis.stats.ratio_batch import ALL_ROWS, Figure, Grouping, Quantity, RatioBatch
from tokstudy.analysis.table import POSITION_NAMES, SegmentationTable, TokenizerColumns

SUBSETS = ("ne", "non_ne", "all")
GROUPINGS = ("entity_type", "position", "language", "dataset", "split")


def subset_mask(table: SegmentationTable, subset: str) -> np.ndarray:
    """Boolean row mask of ``"ne"``, ``"non_ne"`` or ``"all"`` words."""
    if subset == "ne":
        return table.inside
    if subset == "non_ne":
        return table.labelled & ~table.inside
    if subset == "all":
        return np.ones(len(table), dtype=bool)
    raise ValueError(f"unknown subset {subset!r}; expected one of {SUBSETS}")


def subset_grouping(batch: RatioBatch, table: SegmentationTable, subset: str) -> Grouping:
    """The rows of one subset as a one-group grouping (every row for ``"all"``)."""
    if subset == "all":
        return ALL_ROWS
    return batch.grouping(("subset", subset), lambda: np.where(subset_mask(table, subset), 0, -1), (subset,))


def _pct_extra(r):
    return 100.0 * (r - 1.0)


def _pct(r):
    return 100.0 * r


def _same(r):
    return r


# ---- plans: each registers its figures in a batch and assembles its result from the estimates ----


@dataclass(frozen=True)
class _Table4Plan:
    column: TokenizerColumns
    ne: Figure
    non_ne: Figure
    all: Figure

    @classmethod
    def register(cls, batch: RatioBatch, table: SegmentationTable, tokenizer) -> "_Table4Plan":
        col = table.column(tokenizer)

        def ne_or_not():
            codes = np.where(table.inside, 0, 1)
            codes[~table.labelled] = -1
            return codes

        pieces = Quantity(("pieces", col.name), col.n_pieces)
        ne, non_ne = batch.ratio(
            pieces, batch.words, batch.grouping("ne/non_ne", ne_or_not, ("ne", "non_ne")), _pct_extra
        )
        (every,) = batch.ratio(pieces, batch.words, ALL_ROWS, _pct_extra)
        return cls(col, ne, non_ne, every)

    def result(self, est: dict[Figure, Estimate], settings: BootstrapSettings) -> AdditionalSegmentation:
        c = self.column
        return AdditionalSegmentation(
            c.name, est[self.ne], est[self.non_ne], est[self.all], c.boundary_policy, settings
        )


@dataclass(frozen=True)
class GroupedPlan:
    """One tokenizer's additional segmentation per group of ``by`` over the words of ``subset``, as figures planned
    into a :class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch` (shared by :func:`table_statistics` and
    :func:`tokstudy.analysis.stats.breakdowns.breakdowns`, so every grouped figure has one implementation)."""

    column: TokenizerColumns
    by: str
    subset: str
    names: tuple[str, ...]
    figures: tuple[Figure, ...]

    @classmethod
    def register(cls, batch: RatioBatch, table: SegmentationTable, tokenizer, by: str, subset: str) -> "GroupedPlan":
        col = table.column(tokenizer)
        codes, names = group_codes(table, by)
        grouping = batch.grouping(("by", by, subset), lambda: np.where(subset_mask(table, subset), codes, -1), names)
        figures = batch.ratio(Quantity(("pieces", col.name), col.n_pieces), batch.words, grouping, _pct_extra)
        return cls(col, by, subset, names, tuple(figures))

    def result(self, est: dict[Figure, Estimate], settings: BootstrapSettings) -> GroupedEstimates:
        groups = {name: est[f] for name, f in zip(self.names, self.figures) if est[f].n_words > 0}
        return GroupedEstimates(self.column.name, self.by, self.subset, groups, self.column.boundary_policy, settings)


@dataclass(frozen=True)
class _SummaryPlan:
    column: TokenizerColumns
    figures: dict[str, tuple[Figure, ...]]  # subset -> the six figures of SubsetSummary, in its order
    n_pieces: dict[str, int]

    @classmethod
    def register(cls, batch: RatioBatch, table: SegmentationTable, tokenizer) -> "_SummaryPlan":
        col = table.column(tokenizer)
        pieces = Quantity(("pieces", col.name), col.n_pieces)
        continued = Quantity(("continued", col.name), (col.n_pieces >= 2).astype(np.float64))
        unknown = Quantity(("unknown", col.name), col.n_unk)
        continued_pieces = Quantity(("continued pieces", col.name), col.n_pieces * continued.values)
        byte = Quantity(("byte fallback", col.name), col.byte_counts())
        ratios = [  # SubsetSummary's figures, in its order: extra %, fertility, continued %, unknown %,
            (pieces, batch.words, _pct_extra),  # pieces per continued word, then byte-fallback %
            (pieces, batch.words, _same),
            (continued, batch.words, _pct),
            (unknown, pieces, _pct),
            (continued_pieces, continued, _same),
            (byte, pieces, _pct),
        ]
        figures, n_pieces = {}, {}
        for subset in SUBSETS:
            grouping = subset_grouping(batch, table, subset)
            figures[subset] = tuple(batch.ratio(n, d, grouping, f)[0] for n, d, f in ratios)
            rows = slice(None) if grouping.codes is None else grouping.codes == 0
            n_pieces[subset] = int(col.n_pieces[rows].sum())
        return cls(col, figures, n_pieces)

    def result(self, est: dict[Figure, Estimate], settings: BootstrapSettings) -> SegmentationSummary:
        subsets = {
            s: SubsetSummary(*(est[f] for f in figs[:5]), self.n_pieces[s], byte_fallback=est[figs[5]])
            for s, figs in self.figures.items()
        }
        c = self.column
        return SegmentationSummary(
            c.name, subsets["ne"], subsets["non_ne"], subsets["all"], c.boundary_policy, settings
        )


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
    settings = BootstrapSettings(n_resamples, confidence, seed)
    batch = RatioBatch(table, settings)
    plan = _Table4Plan.register(batch, table, tokenizer)
    return plan.result(batch.run(), settings)


def compare_tokenizers(table: SegmentationTable, tokenizers=None, **kwargs) -> list[AdditionalSegmentation]:
    """Table 4 with several tokenizers side by side (all of the table's by default)."""
    return table_statistics(table, tokenizers, groupings=(), summary=False, intrinsic=False, **kwargs).table4


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
    settings = BootstrapSettings(n_resamples, confidence, seed)
    batch = RatioBatch(table, settings)
    plan = GroupedPlan.register(batch, table, tokenizer, by, subset)
    return plan.result(batch.run(), settings)


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
    settings = BootstrapSettings(n_resamples, confidence, seed)
    batch = RatioBatch(table, settings)
    plan = _SummaryPlan.register(batch, table, tokenizer)
    return plan.result(batch.run(), settings)


def default_groupings(table: SegmentationTable) -> list[str]:
    """Entity type and position, plus language and dataset when the table has several."""
    return (
        ["entity_type", "position"]
        + (["language"] if len(table.languages) > 1 else [])
        + (["dataset"] if len(table.datasets) > 1 else [])
    )


def table_statistics(
    table: SegmentationTable,
    tokenizers=None,
    *,
    groupings=None,
    summary: bool = True,
    intrinsic: bool = True,
    renyi_alpha: float = 2.5,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> TableStatistics:
    """Table 4, the summaries, the breakdowns and the intrinsic metrics of every tokenizer, bootstrapped together.

    ``intrinsic`` adds compression, Shannon entropy, Rényi efficiency (order ``renyi_alpha``) and
    vocabulary utilisation per tokenizer and group (:mod:`tokstudy.analysis.stats.intrinsic_table`).

    Equal to calling :func:`additional_segmentation`, :func:`segmentation_summary` and
    :func:`additional_segmentation_by` one by one (same seed, same resamples), but the
    resamples are applied once to all figures.
    """
    names = list(tokenizers or table.tokenizer_names)
    groupings = default_groupings(table) if groupings is None else list(groupings)
    settings = BootstrapSettings(n_resamples, confidence, seed)
    batch = RatioBatch(table, settings)
    t4 = [_Table4Plan.register(batch, table, t) for t in names]
    sm = [_SummaryPlan.register(batch, table, t) for t in names] if summary else []
    by = {g: [GroupedPlan.register(batch, table, t, g, "all") for t in names] for g in groupings}
    if intrinsic:
        from tokstudy.analysis.stats.intrinsic_table import IntrinsicPlan

        intrinsic_plan = IntrinsicPlan.register(batch, table, names, alpha=renyi_alpha)
    est = batch.run()
    return TableStatistics(
        table4=[p.result(est, settings) for p in t4],
        summary=[p.result(est, settings) for p in sm],
        by={g: [p.result(est, settings) for p in plans] for g, plans in by.items()},
        intrinsic=intrinsic_plan.result(est, settings) if intrinsic else [],
    )
