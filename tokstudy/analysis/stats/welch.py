"""Scores over seeds as pure statistics: mean ± std, Welch's t-test between two models, the ``*`` mark.

One implementation for every floor: the fine-tuner's results (:mod:`pretrain.finetune.results`), the
study's Tables 1-2 and its no-pre-training control (:mod:`tokstudy.study.control_and_cost`) all call these.
Torch-free; scipy does the t distribution.

The standard deviation is the sample one (``ddof=1``), as reported for N seeds; with
one seed it is 0. Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``) compares
two models' per-seed scores; the paper marks ``p < 0.05`` with ``*``.

>>> s = summarize([0.90, 0.92, 0.91])
>>> f"{s.mean:.3f} ± {s.std:.3f} (n={s.n})"
'0.910 ± 0.010 (n=3)'
>>> round(welch_p([0.90, 0.92, 0.91], [0.80, 0.82, 0.81]), 6) < 0.05
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from tokstudy.analysis.stats.estimates import CONFIDENCE

ALPHA = 0.05


@dataclass(frozen=True)
class Summary:
    """Mean, sample standard deviation and count of per-seed scores (``values`` kept for tests)."""

    mean: float
    """Mean of the scores."""
    std: float
    """Sample standard deviation (n - 1 in the denominator); 0 for a single score."""
    n: int
    """Number of scores (seeds)."""
    values: tuple[float, ...]
    """The scores themselves."""

    def format(self, scale: float = 100.0, digits: int = 2) -> str:
        """``"91.02 ± 0.35"`` (scores scaled to percent by default)."""
        return f"{self.mean * scale:.{digits}f} ± {self.std * scale:.{digits}f}"

    def to_dict(self) -> dict:
        return {"mean": self.mean, "std": self.std, "n": self.n, "values": list(self.values)}


def summarize(values: Sequence[float]) -> Summary:
    """Mean and sample std (``ddof=1``; 0 for a single value) of per-seed scores."""
    vals = tuple(float(v) for v in values)
    if not vals:
        raise ValueError("summarize: no values (no finished seed)")
    if any(math.isnan(v) for v in vals):
        raise ValueError(f"summarize: NaN among the scores {vals}")
    n = len(vals)
    mean = math.fsum(vals) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else 0.0
    return Summary(mean, std, n, vals)


def welch_t(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Welch's t statistic and two-sided p-value; ``(nan, nan)`` when undefined (fewer than 2 values, zero variance)."""
    from scipy import stats  # deferred: scipy.stats (~0.5-1 s), only when a test is computed

    if len(a) < 2 or len(b) < 2:
        return math.nan, math.nan
    res = stats.ttest_ind(list(a), list(b), equal_var=False)
    return float(res.statistic), float(res.pvalue)


@dataclass(frozen=True)
class WelchDifference:
    """A difference of two means with Welch's interval and p-value (:func:`welch_difference`)."""

    diff: float
    """Mean of the first sample minus mean of the second."""
    low: float
    high: float
    """Welch's interval of ``diff`` (Welch-Satterthwaite degrees of freedom); NaN where the test is undefined."""
    p: float
    """Two-sided p-value of Welch's t-test; NaN where undefined."""
    confidence: float
    """The interval's coverage."""


def welch_difference(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> WelchDifference:
    """Mean of ``a`` minus mean of ``b`` with its Welch confidence interval (Welch-Satterthwaite degrees
    of freedom) and two-sided p-value; ``low``/``high``/``p`` are ``nan`` where Welch's test is undefined
    (fewer than 2 values on a side, or no spread on either).

    >>> d = welch_difference([0.90, 0.92, 0.91], [0.80, 0.82, 0.81])
    >>> round(d.diff, 3), d.low > 0
    (0.1, True)
    """
    from scipy import stats  # deferred: scipy.stats (~0.5-1 s), only when a test is computed

    diff = math.fsum(a) / len(a) - math.fsum(b) / len(b)
    if len(a) < 2 or len(b) < 2 or (len(set(a)) == 1 and len(set(b)) == 1):
        return WelchDifference(diff, math.nan, math.nan, math.nan, confidence)
    res = stats.ttest_ind(list(a), list(b), equal_var=False)
    ci = res.confidence_interval(confidence)
    return WelchDifference(diff, float(ci.low), float(ci.high), float(res.pvalue), confidence)


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of Welch's t-test (``nan`` when undefined)."""
    return welch_t(a, b)[1]


def significance_mark(p: float, alpha: float = ALPHA) -> str:
    """``"*"`` when ``p < alpha``, else ``""`` (also for an undefined p)."""
    return "*" if (not math.isnan(p) and p < alpha) else ""
