"""Many ratio figures, one bootstrap pass.

Every segmentation figure is a ratio of two sums over the words of a group: pieces / words
(fertility), continued words / words, unknown pieces / pieces, characters / pieces, ... Its
interval comes from resampling sentences, so all that a resample needs of a figure is the
per-sentence sums of its numerator and denominator. :class:`RatioBatch` collects the figures a
caller asks for, lays every distinct per-sentence sum out as one column of a matrix, and draws the
resamples once for all of them (:func:`~tokstudy.analysis.stats.bootstrap.bootstrap_totals`).

The words of a figure are chosen by a :class:`Grouping`: row codes ``0..k-1`` (one figure per
group), ``-1`` leaves a row out, and no codes at all means every row. Quantities and groupings
carry a key, so sums asked for twice (word counts shared by every tokenizer, NE rows under two
figures) are computed and bootstrapped once; identical columns with different keys are also
stored once.

A worked example, the NE / non-NE fertility of one tokenizer (what Table 4 reports as
``100 * (fertility - 1)``):

>>> from tokstudy.analysis.stats.estimates import BootstrapSettings
>>> # table = segmentation_table([conll_test], [sp8k])
>>> # batch = RatioBatch(table, BootstrapSettings(n_resamples=1000))
>>> # ne_or_not = batch.grouping("ne/non_ne", lambda: codes_0_for_ne_1_for_other, ("ne", "non_ne"))
>>> # pieces = Quantity(("pieces", "sp8k"), table.column("sp8k").n_pieces)
>>> # ne, non_ne = batch.ratio(pieces, batch.words, ne_or_not)
>>> # estimates = batch.run()
>>> # estimates[ne].value, estimates[ne].low, estimates[ne].high      # pieces per NE word, 95 % CI
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

import numpy as np

from tokstudy.analysis.stats.bootstrap import bootstrap_totals, percentile_interval, sentence_sums
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.table import SegmentationTable


@dataclass(frozen=True, eq=False)
class Quantity:
    """A per-row value to be summed (pieces, characters, continued-word flags, ...).

    Attributes:
        key: names the values; two quantities with one key must hold the same values.
        values: one number per row of the table.
    """

    key: Hashable
    values: np.ndarray


@dataclass(frozen=True, eq=False)
class Grouping:
    """Which rows each figure covers.

    Attributes:
        key: names the grouping; two groupings with one key must have the same codes.
        codes: ``int64`` group of each row, ``-1`` to leave it out; ``None`` for all rows in one group.
        names: the groups, in code order.
    """

    key: Hashable
    codes: np.ndarray | None
    names: tuple[str, ...]


#: every row, one group
ALL_ROWS = Grouping("all", None, ("all",))


@dataclass(frozen=True)
class Figure:
    """A ratio registered in a batch; look its :class:`Estimate` up in what :meth:`RatioBatch.run` returns."""

    index: int


@dataclass(frozen=True)
class _Request:
    numerator: int  # column of per-sentence sums
    denominator: int
    words: int
    transform: Callable[[float], float]


def identity(r: float) -> float:
    return r


class RatioBatch:
    """Collects ratio figures over one table, then estimates them all with one set of resamples."""

    def __init__(self, table: SegmentationTable, settings: BootstrapSettings):
        self.table, self.settings = table, settings
        self.words = Quantity("words", np.ones(len(table)))
        self._groupings: dict[Hashable, Grouping] = {}
        self._sums: dict[tuple[Hashable, Hashable], list[int]] = {}  # (quantity, grouping) -> columns
        self._columns: list[np.ndarray] = []
        self._by_content: dict[int, list[int]] = {}
        self._requests: list[_Request] = []

    def grouping(self, key: Hashable, codes: Callable[[], np.ndarray], names: Sequence[str]) -> Grouping:
        """The grouping named ``key``, its codes made by ``codes()`` the first time only."""
        if key not in self._groupings:
            self._groupings[key] = Grouping(key, np.asarray(codes(), dtype=np.int64), tuple(names))
        return self._groupings[key]

    def ratio(
        self,
        numerator: Quantity,
        denominator: Quantity,
        grouping: Grouping = ALL_ROWS,
        transform: Callable[[float], float] = identity,
    ) -> list[Figure]:
        """Register ``transform(sum(numerator) / sum(denominator))`` in each group; one figure per group."""
        nums = self._sentence_sums(numerator, grouping)
        dens = self._sentence_sums(denominator, grouping)
        words = self._sentence_sums(self.words, grouping)
        start = len(self._requests)
        self._requests += [_Request(n, d, w, transform) for n, d, w in zip(nums, dens, words)]
        return [Figure(i) for i in range(start, len(self._requests))]

    def run(self) -> dict[Figure, Estimate]:
        """Point estimates and intervals of every registered figure."""
        s, table, reqs = self.settings, self.table, self._requests
        m = np.stack(self._columns, axis=1) if self._columns else np.zeros((table.n_sentences, 0))
        total = m.sum(0)
        num = np.array([r.numerator for r in reqs], dtype=np.int64)
        den = np.array([r.denominator for r in reqs], dtype=np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            point = np.where(total[den] > 0, total[num] / np.where(total[den] > 0, total[den], 1), np.nan)
        if s.n_resamples and table.n_sentences and reqs:
            boot = bootstrap_totals(m, n_resamples=s.n_resamples, seed=s.seed)
            with np.errstate(invalid="ignore", divide="ignore"):
                low, high = percentile_interval(boot[:, num] / boot[:, den], s.confidence)
        else:
            low = high = np.full(len(reqs), np.nan)
        out = {}
        for i, r in enumerate(reqs):
            f = r.transform
            out[Figure(i)] = Estimate(
                float(f(point[i])),
                float(f(low[i])),
                float(f(high[i])),
                int(total[r.words]),
                int((m[:, r.words] > 0).sum()),
            )
        return out

    # ---- per-sentence sums as matrix columns ----

    def _sentence_sums(self, quantity: Quantity, grouping: Grouping) -> list[int]:
        key = (quantity.key, grouping.key)
        if key not in self._sums:
            t = self.table
            codes = grouping.codes
            if len(grouping.names) == 1:
                # rows are sorted by sentence and no sentence is empty: one reduceat pass
                v = quantity.values.astype(np.float64) if codes is None else np.where(codes == 0, quantity.values, 0.0)
                sums = np.add.reduceat(v, t.sentence_offsets[:-1])[:, None] if len(v) else np.zeros((0, 1))
            else:
                sums = sentence_sums(quantity.values, t.sentence, t.n_sentences, codes, len(grouping.names))
            self._sums[key] = [self._column(np.ascontiguousarray(sums[:, g])) for g in range(len(grouping.names))]
        return self._sums[key]

    def _column(self, col: np.ndarray) -> int:
        """Index of ``col`` among the columns, added unless an identical one is there already."""
        h = hash(col.tobytes())
        for i in self._by_content.get(h, []):
            if np.array_equal(self._columns[i], col):
                return i
        self._by_content.setdefault(h, []).append(len(self._columns))
        self._columns.append(col)
        return len(self._columns) - 1
