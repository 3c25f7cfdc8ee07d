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

from dataclasses import dataclass, field

import numpy as np

from tokstudy.analysis.bootstrap import bootstrap_totals, percentile_interval, sentence_sums
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


@dataclass(frozen=True)
class TableStatistics:
    """Everything ``tokstudy stats`` prints, for several tokenizers, from one bootstrap pass."""

    table4: list[AdditionalSegmentation]
    summary: list[SegmentationSummary]
    by: dict[str, list[GroupedEstimates]]
    intrinsic: list = field(default_factory=list)
    """:class:`~tokstudy.analysis.intrinsic_table.IntrinsicSummary` per tokenizer (compression, entropy, ...)."""


def subset_mask(table: SegmentationTable, subset: str) -> np.ndarray:
    """Boolean row mask of ``"ne"``, ``"non_ne"`` or ``"all"`` words."""
    if subset == "ne":
        return table.inside
    if subset == "non_ne":
        return table.labelled & ~table.inside
    if subset == "all":
        return np.ones(len(table), dtype=bool)
    raise ValueError(f"unknown subset {subset!r}; expected one of {SUBSETS}")


class _Batch:
    """Collects ratio figures, then bootstraps them all in ONE pass over the resamples.

    Per-sentence sums are columns of one matrix; identical columns (e.g. word counts
    shared by every tokenizer) are stored once. ``run()`` computes every point
    estimate and interval; ``estimate(handle)`` returns one.
    """

    def __init__(self, table: SegmentationTable, settings: BootstrapSettings):
        self.table, self.settings = table, settings
        self.cols: list[np.ndarray] = []
        self._seen: dict[int, list[int]] = {}
        self.requests: list[tuple[int, int, int, object]] = []  # (num col, den col, words col, transform)
        self.done: list[Estimate] | None = None
        self.ones = np.ones(len(table))
        self._sums: dict[tuple, tuple] = {}
        self._groups: dict[object, np.ndarray] = {}

    def group(self, key, make) -> np.ndarray:
        """A group-code array shared by every figure that asks for ``key`` (so its sums are reused)."""
        if key not in self._groups:
            self._groups[key] = make()
        return self._groups[key]

    def _column(self, col: np.ndarray) -> int:
        h = hash(col.tobytes())
        for i in self._seen.get(h, []):
            if np.array_equal(self.cols[i], col):
                return i
        self._seen.setdefault(h, []).append(len(self.cols))
        self.cols.append(col)
        return len(self.cols) - 1

    def _grouped(self, values, group, n_groups) -> list[int]:
        """Per-sentence sums of ``values`` in each group, as column indices (memoised per array pair)."""
        key = (id(values), id(group), n_groups)
        hit = self._sums.get(key)
        if hit is None:
            t = self.table
            if n_groups == 1:
                # rows are sorted by sentence and no sentence is empty: one reduceat pass
                v = np.asarray(values, np.float64) if group is None else np.where(group == 0, values, 0).astype(np.float64)
                m = np.add.reduceat(v, t.sentence_offsets[:-1])[:, None] if len(v) else np.zeros((0, 1))
            else:
                m = sentence_sums(values, t.sentence, t.n_sentences, group, n_groups)
            cols = [self._column(np.ascontiguousarray(m[:, g])) for g in range(n_groups)]
            hit = self._sums[key] = (values, group, cols)  # keep the arrays alive: their ids are the key
        return hit[2]

    def ratios(self, num, den, group, n_groups, transform) -> list[int]:
        """Register ``sum(num)/sum(den)`` within each group (``group`` codes, -1 = left out)."""
        if group is None:
            n_groups = 1
        nums = self._grouped(num, group, n_groups)
        dens = self._grouped(den, group, n_groups)
        words = self._grouped(self.ones, group, n_groups)
        start = len(self.requests)
        self.requests += [(n, d, w, transform) for n, d, w in zip(nums, dens, words)]
        return list(range(start, len(self.requests)))

    def run(self) -> "_Batch":
        s = self.settings
        m = np.stack(self.cols, axis=1) if self.cols else np.zeros((self.table.n_sentences, 0))
        tot = m.sum(0)
        num = np.array([r[0] for r in self.requests], dtype=np.int64)
        den = np.array([r[1] for r in self.requests], dtype=np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            point = np.where(tot[den] > 0, tot[num] / np.where(tot[den] > 0, tot[den], 1), np.nan)
        if s.n_resamples and self.table.n_sentences and len(self.requests):
            boot = bootstrap_totals(m, n_resamples=s.n_resamples, seed=s.seed)
            with np.errstate(invalid="ignore", divide="ignore"):
                low, high = percentile_interval(boot[:, num] / boot[:, den], s.confidence)
        else:
            low = high = np.full(len(self.requests), np.nan)
        self.done = []
        for i, (_, _, w, f) in enumerate(self.requests):
            self.done.append(Estimate(float(f(point[i])), float(f(low[i])), float(f(high[i])),
                                      int(tot[w]), int((m[:, w] > 0).sum())))
        return self

    def estimate(self, handle: int) -> Estimate:
        return self.done[handle]


def _pct_extra(r):
    return 100.0 * (r - 1.0)


def _pct(r):
    return 100.0 * r


def _same(r):
    return r


# ---- planners: register figures in a batch, return a function that assembles the result ----

def _plan_additional(b: _Batch, table: SegmentationTable, tokenizer):
    col = table.column(tokenizer)

    def make():
        g = np.where(table.inside, 0, 1).astype(np.int64)
        g[~table.labelled] = -1
        return g

    group = b.group("ne/non_ne", make)
    ne, non = b.ratios(col.n_pieces, b.ones, group, 2, _pct_extra)
    (every,) = b.ratios(col.n_pieces, b.ones, None, 1, _pct_extra)
    return lambda: AdditionalSegmentation(col.name, b.estimate(ne), b.estimate(non), b.estimate(every),
                                          col.boundary_policy, b.settings)


def _plan_grouped(b: _Batch, table: SegmentationTable, tokenizer, by: str, subset: str):
    col = table.column(tokenizer)
    codes, names = group_codes(table, by)
    codes = b.group(("by", by, subset), lambda: np.where(subset_mask(table, subset), codes, -1))
    handles = b.ratios(col.n_pieces, b.ones, codes, len(names), _pct_extra)

    def finish():
        ests = [b.estimate(h) for h in handles]
        groups = {name: e for name, e in zip(names, ests) if e.n_words > 0}
        return GroupedEstimates(col.name, by, subset, groups, col.boundary_policy, b.settings)

    return finish


def _plan_summary(b: _Batch, table: SegmentationTable, tokenizer):
    col = table.column(tokenizer)
    pieces = col.n_pieces
    ones = b.ones
    continued = (col.n_pieces >= 2).astype(np.float64)
    quantities = [
        (pieces, ones, _pct_extra),
        (pieces, ones, _same),
        (continued, ones, _pct),
        (col.n_unk, pieces, _pct),
        (pieces * continued, continued, _same),
    ]
    plans = {}
    for subset in SUBSETS:
        group = None if subset == "all" else b.group(
            ("subset", subset), lambda subset=subset: np.where(subset_mask(table, subset), 0, -1).astype(np.int64))
        hs = [b.ratios(n, d, group, 1, f)[0] for n, d, f in quantities]
        plans[subset] = (hs, int(pieces.sum() if group is None else pieces[group == 0].sum()))

    def finish():
        out = {}
        for subset, (hs, n_pieces) in plans.items():
            e = [b.estimate(h) for h in hs]
            out[subset] = SubsetSummary(e[0], e[1], e[2], e[3], e[4], n_pieces)
        return SegmentationSummary(col.name, out["ne"], out["non_ne"], out["all"], col.boundary_policy, b.settings)

    return finish


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
    b = _Batch(table, BootstrapSettings(n_resamples, confidence, seed))
    finish = _plan_additional(b, table, tokenizer)
    b.run()
    return finish()


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
    b = _Batch(table, BootstrapSettings(n_resamples, confidence, seed))
    finish = _plan_grouped(b, table, tokenizer, by, subset)
    b.run()
    return finish()


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
    b = _Batch(table, BootstrapSettings(n_resamples, confidence, seed))
    finish = _plan_summary(b, table, tokenizer)
    b.run()
    return finish()


def default_groupings(table: SegmentationTable) -> list[str]:
    """Entity type and position, plus language and dataset when the table has several."""
    return ["entity_type", "position"] + (["language"] if len(table.languages) > 1 else []) + (
        ["dataset"] if len(table.datasets) > 1 else [])


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
    vocabulary utilisation per tokenizer and group (:mod:`tokstudy.analysis.intrinsic_table`).

    Equal to calling :func:`additional_segmentation`, :func:`segmentation_summary` and
    :func:`additional_segmentation_by` one by one (same seed, same resamples), but the
    resamples are applied once to all figures.
    """
    names = list(tokenizers or table.tokenizer_names)
    groupings = default_groupings(table) if groupings is None else list(groupings)
    b = _Batch(table, BootstrapSettings(n_resamples, confidence, seed))
    t4 = [_plan_additional(b, table, t) for t in names]
    sm = [_plan_summary(b, table, t) for t in names] if summary else []
    by = {g: [_plan_grouped(b, table, t, g, "all") for t in names] for g in groupings}
    if intrinsic:
        from tokstudy.analysis.intrinsic_table import plan_intrinsic

        finish_intrinsic = plan_intrinsic(b, table, names, alpha=renyi_alpha)
    b.run()
    return TableStatistics([f() for f in t4], [f() for f in sm], {g: [f() for f in fs] for g, fs in by.items()},
                           finish_intrinsic() if intrinsic else [])
