"""Many ratio figures, one bootstrap pass.

Every segmentation figure is a ratio of two sums over the words of a group: pieces / words
(fertility), continued words / words, unknown pieces / pieces, characters / pieces, ... Its
interval comes from resampling sentences, so all that a resample needs of a figure is the
per-sentence sums of its numerator and denominator. :class:`RatioBatch` collects the figures a
caller asks for, lays every distinct per-sentence sum out as one column of a matrix, and draws the
resamples once for all of them (:func:`~tokstudy.analysis.stats.bootstrap.bootstrap_totals`).

A figure is named by what it is, a :class:`FigureKey` (tokenizer, quantity, grouping, group), and
its estimate is looked up by that key in what :meth:`RatioBatch.run` returns. A per-sentence sum is
named by its :class:`Quantity`'s key and its grouping and group, so sums asked for twice (word
counts shared by every tokenizer, NE rows under two figures) are computed and bootstrapped once, and
a figure asked for twice is one figure.

A worked example, the NE fertility of one tokenizer (what Table 4 reports as
``100 * (fertility - 1)``):

>>> from tokstudy.analysis.stats.estimates import BootstrapSettings
>>> # table = segmentation_table([conll_test], [sp8k])
>>> # batch = RatioBatch(table, BootstrapSettings(n_resamples=1000))
>>> # ne = subset_grouping(table, "ne")                      # tokstudy.analysis.stats.groupings
>>> # pieces = Quantity("pieces", table.column("sp8k").n_pieces, tokenizer="sp8k")
>>> # (key,) = batch.ratio("fertility", pieces, batch.words, ne)
>>> # key                       # FigureKey(tokenizer='sp8k', quantity='fertility', grouping='subset', group='ne')
>>> # estimates = batch.run()
>>> # estimates[key].value, estimates[key].low, estimates[key].high      # pieces per NE word, 95 % CI
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from tokstudy.analysis.stats.bootstrap import bootstrap_totals, percentile_interval, sentence_sums
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.stats.groupings import Grouping
from tokstudy.analysis.table import SegmentationTable


@dataclass(frozen=True)
class FigureKey:
    """What a figure is: ``quantity`` of ``tokenizer``'s pieces over the words of ``group`` of ``grouping``.

    Attributes:
        tokenizer: the tokenizer's name (``None`` for a figure of no tokenizer).
        quantity: the ratio estimated (``"additional segmentation %"``, ``"fertility"``, ...).
        grouping: the :attr:`Grouping.name` of the words' grouping (``"subset"``, ``"entity_type"``, ...).
        group: the group (``"ne"``, ``"PER"``, ...).
    """

    tokenizer: str | None
    quantity: str
    grouping: str
    group: str


@dataclass(frozen=True, eq=False)
class Quantity:
    """A per-row value to be summed (pieces, characters, continued-word flags, ...).

    Attributes:
        name: what is counted (``"pieces"``, ``"characters"``, ...).
        values: one number per row of the table.
        tokenizer: whose pieces it counts (``None`` for a count of the words themselves).
    """

    name: str
    values: np.ndarray
    tokenizer: str | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        """Two quantities with one key hold the same values."""
        return (self.name, self.tokenizer)


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
        self._columns: dict[tuple, int] = {}  # (quantity key, grouping name, group) -> column of per-sentence sums
        self._sums: list[np.ndarray] = []
        self._requests: dict[FigureKey, _Request] = {}

    def ratio(
        self,
        quantity: str,
        numerator: Quantity,
        denominator: Quantity,
        grouping: Grouping,
        transform: Callable[[float], float] = identity,
    ) -> list[FigureKey]:
        """Register ``transform(sum(numerator) / sum(denominator))`` named ``quantity`` in each group.

        Returns the figures' keys, one per group of ``grouping``. The tokenizer of the key is the
        numerator's (else the denominator's).
        """
        tokenizer = numerator.tokenizer if numerator.tokenizer is not None else denominator.tokenizer
        keys = [FigureKey(tokenizer, quantity, grouping.name, g) for g in grouping.groups]
        if all(k in self._requests for k in keys):
            return keys
        nums = self._sentence_sums(numerator, grouping)
        dens = self._sentence_sums(denominator, grouping)
        words = self._sentence_sums(self.words, grouping)
        for key, n, d, w in zip(keys, nums, dens, words):
            self._requests.setdefault(key, _Request(n, d, w, transform))
        return keys

    def run(self) -> dict[FigureKey, Estimate]:
        """Point estimates and intervals of every registered figure."""
        s, table = self.settings, self.table
        keys, reqs = list(self._requests), list(self._requests.values())
        m = np.stack(self._sums, axis=1) if self._sums else np.zeros((table.n_sentences, 0))
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
        for i, (key, r) in enumerate(zip(keys, reqs)):
            f = r.transform
            out[key] = Estimate(
                float(f(point[i])),
                float(f(low[i])),
                float(f(high[i])),
                int(total[r.words]),
                int((m[:, r.words] > 0).sum()),
            )
        return out

    # ---- per-sentence sums as matrix columns ----

    def _sentence_sums(self, quantity: Quantity, grouping: Grouping) -> list[int]:
        """The columns of ``quantity``'s per-sentence sums in each group of ``grouping``, added once."""
        keys = [(quantity.key, grouping.name, g) for g in grouping.groups]
        if any(k not in self._columns for k in keys):
            t, codes = self.table, grouping.codes
            if len(grouping.groups) == 1:
                # rows are sorted by sentence and no sentence is empty: one reduceat pass
                v = quantity.values.astype(np.float64) if codes is None else np.where(codes == 0, quantity.values, 0.0)
                sums = np.add.reduceat(v, t.sentence_offsets[:-1])[:, None] if len(v) else np.zeros((0, 1))
            else:
                sums = sentence_sums(quantity.values, t.sentence, t.n_sentences, codes, len(grouping.groups))
            for g, k in enumerate(keys):
                if k not in self._columns:
                    self._columns[k] = len(self._sums)
                    self._sums.append(np.ascontiguousarray(sums[:, g]))
        return [self._columns[k] for k in keys]
