"""Mean ± std, Welch's t-test and its confidence interval against independent formulas and scipy."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

from tokstudy.analysis.stats.welch import significance_mark, summarize, welch_difference, welch_p, welch_t


def test_summary_is_mean_and_sample_std():
    vals = [0.91, 0.88, 0.905, 0.899]
    s = summarize(vals)
    assert s.mean == pytest.approx(np.mean(vals)) and s.std == pytest.approx(np.std(vals, ddof=1))
    assert summarize([0.5]).std == 0.0
    assert s.format() == f"{100 * np.mean(vals):.2f} ± {100 * np.std(vals, ddof=1):.2f}"
    with pytest.raises(ValueError):
        summarize([])


def test_welch_matches_the_formula_and_scipy():
    rng = random.Random(3)
    for _ in range(50):
        a = [rng.gauss(0.9, 0.01) for _ in range(rng.randint(2, 10))]
        b = [rng.gauss(0.9 + rng.choice([0, 0.01]), rng.choice([0.005, 0.02])) for _ in range(rng.randint(2, 10))]
        va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
        t = (np.mean(a) - np.mean(b)) / math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        p = 2 * stats.t.sf(abs(t), df)
        got_t, got_p = welch_t(a, b)
        assert got_t == pytest.approx(t, rel=1e-9) and got_p == pytest.approx(p, rel=1e-7)
        assert got_p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-12)


def test_marks():
    assert significance_mark(0.01) == "*" and significance_mark(0.05) == "" and significance_mark(math.nan) == ""
    assert math.isnan(welch_p([0.9], [0.8, 0.7]))


def test_welch_difference_interval_matches_the_formula_and_scipy():
    rng = random.Random(11)
    for _ in range(30):
        a = [rng.gauss(70, 2) for _ in range(rng.randint(2, 8))]
        b = [rng.gauss(rng.choice([60, 70]), rng.choice([1, 4])) for _ in range(rng.randint(2, 8))]
        va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
        df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
        diff = np.mean(a) - np.mean(b)
        got = welch_difference(a, b)
        assert got.diff == pytest.approx(diff, rel=1e-12)
        assert got.low == pytest.approx(diff - half, rel=1e-9)
        assert got.high == pytest.approx(diff + half, rel=1e-9)
        assert got.p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-12)
        assert got.confidence == 0.95


def test_welch_difference_is_undefined_without_spread_or_seeds():
    for a, b in (([70.0], [60.0, 61.0]), ([70.0, 70.0], [60.0, 60.0])):
        got = welch_difference(a, b)
        assert got.diff == pytest.approx(np.mean(a) - np.mean(b))
        assert math.isnan(got.low) and math.isnan(got.high) and math.isnan(got.p)


def test_the_library_statistics_import_without_torch():
    import subprocess
    import sys

    code = "import sys, tokstudy.analysis.stats.welch as w; w.welch_p([1, 2], [3, 5]); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False"


def test_the_docstring_examples_run():
    import doctest

    import tokstudy.analysis.stats.welch as welch

    result = doctest.testmod(welch)
    assert result.failed == 0 and result.attempted > 0
