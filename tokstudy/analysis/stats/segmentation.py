"""Segmentation statistics over the per-word table: pure functions returning frozen dataclasses.

Definitions (over a set of words, e.g. the words inside gold entities):

* **additional segmentation %** = ``100 * (pieces / words - 1)`` (the mALBERT paper's Table 4);
* **fertility** = ``pieces / words``;
* **continued words %** = ``100 * words with >= 2 pieces / words``;
* **unknown pieces %** = ``100 * unknown pieces / pieces``;
* **byte-fallback pieces %** = ``100 * byte-fallback pieces (<0xE1>) / pieces``: where it is
  high the pieces spell UTF-8 bytes, and the other figures measure bytes, not segmentation;
* **byte pieces %** = ``100 * byte pieces / pieces``, a byte piece being one that is bytes, not whole
  characters, whatever made it: a byte-fallback piece of a multi-byte character or a byte-level BPE piece
  holding part of one (:mod:`tokstudy.analysis.table.bytepieces`). Byte-level BPE flags nothing, so this is
  the figure that shows Tekken on Amharic (99 % byte pieces) for what it is;
* **pieces per continued word** = ``pieces of continued words / continued words``.

Subsets: ``ne`` = words inside a gold entity, ``non_ne`` = labelled words outside
entities, ``all`` = every word. Each figure carries a sentence-bootstrap
confidence interval (:mod:`tokstudy.analysis.stats.bootstrap`), and each result states
the tokenizer's boundary policy (how a lone ``▁`` piece was counted).

Each public function registers its figures in one :class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch`
through a *plan* (a small dataclass naming the figures it asked for by their
:class:`~tokstudy.analysis.stats.ratio_batch.FigureKey`), runs the batch once, and lets the plan
assemble its result from the estimates. The words each figure covers are
:class:`~tokstudy.analysis.stats.groupings.Groupings` built once per call. :func:`table_statistics`
puts every plan of every tokenizer into one batch, so one set of resamples serves all figures.

>>> # t = segmentation_table([dataset], [tokenizer])
>>> # additional_segmentation(t).ne.value   # e.g. 120.59 (%)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tokstudy.analysis.stats.estimates import (
    AdditionalSegmentation,
    BootstrapSettings,
    Estimate,
    GroupedEstimates,
    SegmentationSummary,
    SubsetSummary,
    TableStatistics,
)
from tokstudy.analysis.stats.groupings import SUBSETS, Grouping, Groupings, default_groupings
from tokstudy.analysis.stats.intrinsic_table import IntrinsicPlan
from tokstudy.analysis.stats.ratio_batch import FigureKey, Quantity, RatioBatch
from tokstudy.analysis.table import SegmentationTable, TokenizerColumns

#: the quantity of Table 4 and of every breakdown: ``100 * (pieces / words - 1)``.
ADDITIONAL = "additional segmentation %"


def _pct_extra(r):
    return 100.0 * (r - 1.0)


def _pct(r):
    return 100.0 * r


def _same(r):
    return r


def _additional(batch: RatioBatch, col: TokenizerColumns, grouping: Grouping) -> list[FigureKey]:
    """Additional segmentation % of ``col``'s tokenizer in each group of ``grouping``."""
    pieces = Quantity("pieces", col.n_pieces, col.name)
    return batch.ratio(ADDITIONAL, pieces, batch.words, grouping, _pct_extra)


# ---- plans: each registers its figures in a batch and assembles its result from the estimates ----


@dataclass(frozen=True)
class _Table4Plan:
    column: TokenizerColumns
    ne: FigureKey
    non_ne: FigureKey
    all: FigureKey

    @classmethod
    def register(cls, batch: RatioBatch, groupings: Groupings, table: SegmentationTable, tokenizer) -> "_Table4Plan":
        col = table.column(tokenizer)
        return cls(col, *(_additional(batch, col, groupings.subsets[s])[0] for s in SUBSETS))

    def result(self, est: dict[FigureKey, Estimate], settings: BootstrapSettings) -> AdditionalSegmentation:
        c = self.column
        return AdditionalSegmentation(
            c.name, est[self.ne], est[self.non_ne], est[self.all], c.boundary_policy, settings
        )


@dataclass(frozen=True)
class GroupedPlan:
    """One tokenizer's additional segmentation per group of ``by`` over the words of ``subset``, as figures planned
    into a :class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch` (shared by :func:`table_statistics` and
    :func:`breakdowns`, so every grouped figure has one implementation).

    ``groupings`` must hold ``(by, subset)``."""

    column: TokenizerColumns
    by: str
    subset: str
    figures: tuple[FigureKey, ...]

    @classmethod
    def register(
        cls, batch: RatioBatch, groupings: Groupings, table: SegmentationTable, tokenizer, by: str, subset: str
    ) -> "GroupedPlan":
        col = table.column(tokenizer)
        return cls(col, by, subset, tuple(_additional(batch, col, groupings.by[(by, subset)])))

    def result(self, est: dict[FigureKey, Estimate], settings: BootstrapSettings) -> GroupedEstimates:
        groups = {f.group: est[f] for f in self.figures if est[f].n_words > 0}
        return GroupedEstimates(self.column.name, self.by, self.subset, groups, self.column.boundary_policy, settings)


#: SubsetSummary's figures, in its order: (quantity, numerator, denominator, transform) by quantity name.
_SUMMARY = (
    (ADDITIONAL, "pieces", "words", _pct_extra),
    ("fertility", "pieces", "words", _same),
    ("continued words %", "continued", "words", _pct),
    ("unknown pieces %", "unknown", "pieces", _pct),
    ("pieces per continued word", "continued pieces", "continued", _same),
    ("byte-fallback pieces %", "byte fallback", "pieces", _pct),
    ("byte pieces %", "byte pieces", "pieces", _pct),
)


@dataclass(frozen=True)
class _SummaryPlan:
    column: TokenizerColumns
    figures: dict[str, tuple[FigureKey, ...]]  # subset -> the seven figures of SubsetSummary, in its order
    n_pieces: dict[str, int]

    @classmethod
    def register(cls, batch: RatioBatch, groupings: Groupings, table: SegmentationTable, tokenizer) -> "_SummaryPlan":
        col = table.column(tokenizer)
        continued = (col.n_pieces >= 2).astype(np.float64)
        sums = {
            "words": batch.words,
            "pieces": Quantity("pieces", col.n_pieces, col.name),
            "continued": Quantity("continued", continued, col.name),
            "unknown": Quantity("unknown", col.n_unk, col.name),
            "continued pieces": Quantity("continued pieces", col.n_pieces * continued, col.name),
            "byte fallback": Quantity("byte fallback", col.byte_counts(), col.name),
            "byte pieces": Quantity("byte pieces", col.partial_counts(), col.name),
        }
        figures, n_pieces = {}, {}
        for subset in SUBSETS:
            grouping = groupings.subsets[subset]
            figures[subset] = tuple(batch.ratio(q, sums[n], sums[d], grouping, f)[0] for q, n, d, f in _SUMMARY)
            rows = slice(None) if grouping.codes is None else grouping.codes == 0
            n_pieces[subset] = int(col.n_pieces[rows].sum())
        return cls(col, figures, n_pieces)

    def result(self, est: dict[FigureKey, Estimate], settings: BootstrapSettings) -> SegmentationSummary:
        subsets = {
            s: SubsetSummary(
                *(est[f] for f in figs[:5]),
                self.n_pieces[s],
                byte_fallback=est[figs[5]],
                # not counted in a table read from a Parquet file written before byte pieces were: no figure
                byte_pieces=est[figs[6]] if self.column.n_partial is not None else None,
            )
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
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> AdditionalSegmentation:
    """Table 4: additional segmentation % of NE, non-NE and all words, with bootstrap CIs.

    ``tokenizer`` may be omitted when the table has exactly one.
    """
    batch = RatioBatch(table, bootstrap)
    plan = _Table4Plan.register(batch, Groupings.of(table), table, tokenizer)
    return plan.result(batch.run(), bootstrap)


def compare_tokenizers(table: SegmentationTable, tokenizers=None, **kwargs) -> list[AdditionalSegmentation]:
    """Table 4 with several tokenizers side by side (all of the table's by default)."""
    return table_statistics(table, tokenizers, groupings=(), summary=False, intrinsic=False, **kwargs).table4


def additional_segmentation_by(
    table: SegmentationTable,
    tokenizer: str | None = None,
    by: str = "entity_type",
    *,
    subset: str = "all",
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> GroupedEstimates:
    """Additional segmentation % per entity type, B/I/O position, language, dataset or split.

    ``subset`` restricts the words first (e.g. ``by="language", subset="ne"``).
    Groups without words are left out.
    """
    batch = RatioBatch(table, bootstrap)
    plan = GroupedPlan.register(batch, Groupings.of(table, [(by, subset)]), table, tokenizer, by, subset)
    return plan.result(batch.run(), bootstrap)


def segmentation_summary(
    table: SegmentationTable,
    tokenizer: str | None = None,
    *,
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> SegmentationSummary:
    """Additional segmentation, fertility, continued words, unknown pieces and pieces per
    continued word, for NE, non-NE and all words, each with a bootstrap CI."""
    batch = RatioBatch(table, bootstrap)
    plan = _SummaryPlan.register(batch, Groupings.of(table), table, tokenizer)
    return plan.result(batch.run(), bootstrap)


def table_statistics(
    table: SegmentationTable,
    tokenizers=None,
    *,
    groupings=None,
    summary: bool = True,
    intrinsic: bool = True,
    renyi_alpha: float = 2.5,
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> TableStatistics:
    """Table 4, the summaries, the breakdowns and the intrinsic metrics of every tokenizer, bootstrapped together.

    ``intrinsic`` adds compression, Shannon entropy, Rényi efficiency (order ``renyi_alpha``) and
    vocabulary utilisation per tokenizer and group (:mod:`tokstudy.analysis.stats.intrinsic_table`).

    Equal to calling :func:`additional_segmentation`, :func:`segmentation_summary` and
    :func:`additional_segmentation_by` one by one (same seed, same resamples), but the
    resamples are applied once to all figures.
    """
    names = list(tokenizers or table.tokenizer_names)
    by_names = default_groupings(table) if groupings is None else list(groupings)
    needed = [(g, "all") for g in by_names] + ([("language", "all")] if intrinsic and len(table.languages) > 1 else [])
    groups = Groupings.of(table, needed)
    batch = RatioBatch(table, bootstrap)
    t4 = [_Table4Plan.register(batch, groups, table, t) for t in names]
    sm = [_SummaryPlan.register(batch, groups, table, t) for t in names] if summary else []
    by = {g: [GroupedPlan.register(batch, groups, table, t, g, "all") for t in names] for g in by_names}
    intrinsic_plan = IntrinsicPlan.register(batch, groups, table, names, alpha=renyi_alpha) if intrinsic else None
    est = batch.run()
    return TableStatistics(
        table4=[p.result(est, bootstrap) for p in t4],
        summary=[p.result(est, bootstrap) for p in sm],
        by={g: [p.result(est, bootstrap) for p in plans] for g, plans in by.items()},
        intrinsic=intrinsic_plan.result(est, bootstrap) if intrinsic_plan else [],
    )


def breakdowns(
    table: SegmentationTable,
    tokenizers: Sequence[str] | None = None,
    *,
    groupings: Sequence[str],
    subsets: Sequence[str] = SUBSETS,
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> dict[str, list[GroupedEstimates]]:
    """Additional segmentation per group *and* subset of words: ``{grouping: [GroupedEstimates per tokenizer,
    then per subset]}``, every figure in one bootstrap pass.

    :func:`table_statistics` breaks every word down by entity type, language, dataset, ...; a study also wants
    the breakdown of NE and non-NE words apart (Table 4 per language). This plans all of them into one
    :class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch` with :class:`GroupedPlan` (one implementation of
    a grouped figure), so one set of resamples serves every (grouping, subset, tokenizer); each result equals
    :func:`additional_segmentation_by` with the same arguments.

    ``groupings`` are names of :data:`~tokstudy.analysis.stats.groupings.GROUPINGS`; ``subsets`` of
    :data:`~tokstudy.analysis.stats.groupings.SUBSETS` (``"ne"``, ``"non_ne"``, ``"all"``).
    """
    names = list(tokenizers or table.tokenizer_names)
    batch = RatioBatch(table, bootstrap)
    groups = Groupings.of(table, [(g, s) for g in groupings for s in subsets])
    plans = {
        g: [GroupedPlan.register(batch, groups, table, t, g, s) for t in names for s in subsets] for g in groupings
    }
    est = batch.run()
    return {g: [p.result(est, bootstrap) for p in ps] for g, ps in plans.items()}
