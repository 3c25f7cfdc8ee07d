"""One text for a figure with an interval: ``value [low, high]``, shared by estimates and odds ratios."""

from __future__ import annotations

import math
import random

import pytest

from tokstudy.analysis.model_errors.attribution import NAN_OR, OddsRatio
from tokstudy.analysis.stats.estimates import Estimate, interval_text


@pytest.mark.parametrize("spec", ["", ".1f", ".3f", ".0%"])
def test_estimates_and_odds_ratios_print_the_same_interval(spec):
    rng = random.Random(spec)
    for _ in range(50):
        low, value, high = sorted(rng.uniform(-5, 5) for _ in range(3))
        want = "{0:{3}} [{1:{3}}, {2:{3}}]".format(value, low, high, spec or ".2f")
        assert format(Estimate(value, low, high, 3, 1), spec) == want
        assert format(OddsRatio(value, low, high, 0.5), spec) == want
        assert interval_text(Estimate(value, low, high, 3, 1), spec) == want


def test_what_is_missing_is_said_once_per_kind():
    nan = math.nan
    assert format(Estimate(2.0, nan, nan, 3, 1)) == "2.00"  # no resamples: the value alone
    assert format(NAN_OR) == "–"  # no fit: no odds ratio
