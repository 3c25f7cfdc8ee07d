"""Pre-trained models against their no-pre-training controls, and the cost table, from the scored runs."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from tests.fixtures_doctest import assert_examples_pass
from tokstudy.analysis.stats.welch import welch_difference
from tokstudy.report.scores import control_from_json, control_to_json
from tokstudy.study.attempts import Attempt, AttemptEnd
from tokstudy.study.control_and_cost import (
    RETRIED_NOTE,
    control_comparison,
    cost_table,
    energy_points,
    format_cost,
    sum_costs,
    tables_1_2_markdown,
    with_attempts,
)
from tokstudy.study.findings import pretraining_helps
from tokstudy.study.run_cost import RunCost
from tokstudy.study.scored_runs import ScoredRun


def _welch_ci_by_hand(a, b, confidence=0.95):
    """Welch's interval written out (Welch-Satterthwaite degrees of freedom), independent of ttest_ind."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = stats.t.ppf(0.5 + confidence / 2, df) * math.sqrt(va + vb)
    d = a.mean() - b.mean()
    return d, d - half, d + half


@pytest.mark.parametrize("seed", range(5))
def test_welch_difference_matches_the_formula(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(80, 2, size=3).tolist(), rng.normal(75, 4, size=4).tolist()
    got = welch_difference(a, b)
    d, lo, hi = _welch_ci_by_hand(a, b)
    assert got.diff == pytest.approx(d) and got.low == pytest.approx(lo) and got.high == pytest.approx(hi)
    assert got.p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)


def test_welch_difference_undefined_with_one_seed():
    got = welch_difference([80.0], [70.0])
    assert got.diff == 10.0 and math.isnan(got.low) and math.isnan(got.p)


_MEASURED_RUN = {"wall_seconds": 60.0, "device_hours": 1 / 60, "energy_kwh": 0.001, "co2e_kg": 5e-5, "method": "m"}
_UNMEASURED_RUN = {
    "wall_seconds": 30.0,
    "device_hours": 1 / 120,
    "energy_kwh": None,
    "co2e_kg": None,
    "method": "not measured: codecarbon is not installed",
}


def _runs(pre, ctl, tok="sp-8k", task="conll2003-ner"):
    measured, unmeasured = RunCost.from_json(_MEASURED_RUN), RunCost.from_json(_UNMEASURED_RUN)
    out = [ScoredRun(tok, task, i, True, s, "F1", cost=measured) for i, s in enumerate(pre)]
    return out + [ScoredRun(tok, task, i, False, s, "F1", cost=unmeasured) for i, s in enumerate(ctl)]


def test_control_comparison_pairs_each_model_with_its_control():
    runs = _runs([70.0, 72.0, 71.0], [50.0, 55.0, 52.0]) + _runs([60.0, 61.0, 62.0], [59.0, 62.0, 60.0], tok="sp-16k")
    c = control_comparison(runs)["conll2003-ner"]
    assert c["sp-8k"].pretrained.mean == pytest.approx(71.0) and c["sp-8k"].metric == "F1"
    assert c["sp-8k"].control.mean == pytest.approx(52.333333) and c["sp-8k"].control.values == (50.0, 55.0, 52.0)
    d, lo, hi = _welch_ci_by_hand([70, 72, 71], [50, 55, 52])
    assert (c["sp-8k"].diff, c["sp-8k"].low, c["sp-8k"].high) == pytest.approx((d, lo, hi))
    found = pretraining_helps({"conll2003-ner": c}, ["sp-8k", "sp-16k"])[0]
    assert found.holds is None  # 8k: yes, 16k: its interval holds 0
    assert "sp-8k: 71.00 vs 52.33 without pre-training" in found.evidence
    only_8k = pretraining_helps({"t": {"sp-8k": c["sp-8k"]}}, ["sp-8k"])[0]
    assert only_8k.holds is True and "**yes**" in only_8k.markdown()


def test_control_json_holds_each_side_and_welchs_interval():
    runs = _runs([70.0, 72.0, 71.0], [50.0, 55.0, 52.0]) + _runs([80.0], [60.0], tok="sp-16k", task="cls")
    written = control_to_json(control_comparison(runs))
    side = {"mean": pytest.approx(71.0), "std": pytest.approx(1.0), "n": 3, "values": [70.0, 72.0, 71.0]}
    ner = written["conll2003-ner"]["sp-8k"]
    assert list(ner) == ["metric", "pretrained", "control", "diff", "low", "high", "p", "confidence"]
    assert ner["pretrained"] == side and ner["metric"] == "F1" and ner["confidence"] == 0.95
    one_seed = written["cls"]["sp-16k"]  # Welch's test is undefined: null, as every table's JSON writes NaN
    assert one_seed["diff"] == 20.0 and one_seed["low"] is None and one_seed["p"] is None
    assert control_to_json(control_from_json(written)) == written


def test_pretraining_hurts_is_a_no():
    c = control_comparison(_runs([50.0, 51.0, 52.0], [70.0, 71.0, 73.0]))
    assert pretraining_helps(c, ["sp-8k"])[0].holds is False


def test_no_control_no_comparison():
    assert control_comparison(_runs([70.0, 71.0], [])) == {}


def test_costs_sum_over_seeds_and_stay_unmeasured_when_one_is():
    runs = _runs([70.0, 72.0], [50.0, 55.0])
    costs = cost_table(
        runs,
        {"sp-8k": RunCost(600.0, device_hours=1 / 6, energy_kwh=0.01, co2e_kg=5e-4, method="m")},
    )
    ft = costs.finetune["conll2003-ner"]
    assert ft["sp-8k"].wall_seconds == 120.0 and ft["sp-8k"].energy_kwh == pytest.approx(0.002)
    assert ft["sp-8k"].runs == 2 and ft["sp-8k"].device_hours == pytest.approx(2 / 60)
    assert ft["sp-8k (no PT)"].wall_seconds == 60.0 and ft["sp-8k (no PT)"].energy_kwh is None
    assert format_cost(ft["sp-8k (no PT)"]) == "1.0 min, energy not measured"
    assert format_cost(ft["sp-8k"]) == "2.0 min, 0.0020 kWh, 0.10 g CO2e"
    assert sum_costs([None, None]) is None
    scores = {"conll2003-ner": {"sp-8k": {"mean": 71.0, "std": 1.4, "metric": "F1"}}}
    points = energy_points(scores, control_to_json(control_comparison(runs)), costs)
    # the control's energy was not measured: only the pre-trained model is plotted, with pre-training included
    assert [p["model"] for p in points] == ["sp-8k"] and points[0]["energy_kwh"] == pytest.approx(0.012)


def test_tables_1_2_show_controls_and_costs_next_to_the_scores():
    runs = _runs([70.0, 72.0, 71.0], [50.0, 55.0, 52.0])
    scores = {"conll2003-ner": {"sp-8k": {"mean": 71.0, "std": 1.0, "metric": "F1"}}}
    costs = cost_table(runs, {"sp-8k": None}).to_json()  # the report reads cost.json as written
    md = tables_1_2_markdown(
        scores, control_to_json(control_comparison(runs)), costs, ["sp-8k"], 3, figure="figures/x.png"
    )
    assert "| task | sp-8k | sp-8k (no PT) |" in md
    assert "| conll2003-ner (F1) | 71.00 ± 1.00 | 52.33 ± 2.52 |" in md
    assert "| pre-training | not measured | — |" in md
    assert "| fine-tuning conll2003-ner | 3.0 min, 0.0030 kWh, 0.15 g CO2e | 1.5 min, energy not measured |" in md
    assert "![score against energy](figures/x.png)" in md


MEASURED = {
    "wall_seconds": 120.0,
    "device": "cuda:H100",
    "device_count": 2,
    "device_hours": 120.0 / 3600 * 2,
    "energy_kwh": 0.05,
    "co2e_kg": 0.002,
    "method": "codecarbon",
    "stage_seconds": 130.0,
}


def test_a_retried_run_costs_its_lost_attempts_too():
    lost = [Attempt("w1", 0.0, 40.0, AttemptEnd.LOST), Attempt("w2", 50.0, 25.5, AttemptEnd.LOST)]
    raised = Attempt("w3", 80.0, 10.0, AttemptEnd.RAISED)  # ended in the trainer's hands: its time is the trainer's
    final = Attempt("w4", 95.0, 130.0, AttemptEnd.RETURNED)
    c = with_attempts(MEASURED, [*lost, raised, final])
    assert c.attempts == 4 and c.lost_seconds == 65.5
    assert c.wall_seconds == 185.5 and c.stage_seconds == 195.5
    assert c.device_hours == pytest.approx(185.5 / 3600 * 2)  # two devices for every second of it
    assert c.energy_kwh is None and c.co2e_kg is None and "(the finished one: codecarbon)" in c.method
    assert MEASURED["wall_seconds"] == 120.0  # the trainer's record is left as it was
    assert format_cost(c) == "3.1 min (4 attempts), energy not measured"
    # written after the trainer's fields, as cost.json holds them
    assert list(c.to_json())[-2:] == ["attempts", "lost_seconds"] and set(c.to_json()) - set(MEASURED) == {
        "attempts",
        "lost_seconds",
    }
    # an attempt that raised loses no time the trainer did not see: the energy stays measured
    kept = with_attempts(MEASURED, [raised, final])
    assert kept.wall_seconds == 120.0 and kept.energy_kwh == 0.05 and kept.attempts == 2
    assert with_attempts(MEASURED, [final]).to_json() == MEASURED and with_attempts(None, [*lost, final]) is None


def test_attempts_sum_over_seeds_and_show_in_the_cost_table():
    lost, final = Attempt("w1", 0.0, 30.0, AttemptEnd.LOST), Attempt("w2", 40.0, 60.0, AttemptEnd.RETURNED)
    runs = _runs([70.0, 72.0, 71.0], [50.0, 55.0, 52.0])
    record = {**MEASURED, "energy_kwh": None, "co2e_kg": None, "method": "m"}
    once = with_attempts(record, [final])
    runs = [
        dataclasses.replace(r, cost=with_attempts(record, [lost, final]) if r.seed == 1 and r.pretrained else once)
        for r in runs
    ]
    costs = cost_table(runs, {"sp-8k": with_attempts(record, [lost, final])})
    ft = costs.finetune["conll2003-ner"]
    assert ft["sp-8k"].attempts == 4 and ft["sp-8k"].runs == 3 and ft["sp-8k"].lost_seconds == 30.0
    assert ft["sp-8k"].wall_seconds == 3 * 120.0 + 30.0 and ft["sp-8k (no PT)"].attempts == 3
    assert "attempts" not in costs.to_json()["finetune"]["conll2003-ner"]["sp-8k (no PT)"]  # none retried
    scores = {"conll2003-ner": {"sp-8k": {"mean": 71.0, "std": 1.0, "metric": "F1"}}}
    control = control_to_json(control_comparison(runs))
    md = tables_1_2_markdown(scores, control, costs.to_json(), ["sp-8k"], 3)
    assert "| pre-training | 2.5 min (2 attempts), energy not measured | — |" in md
    assert "| fine-tuning conll2003-ner | 6.5 min (4 attempts for 3 runs), energy not measured | 6.0 min," in md
    assert RETRIED_NOTE in md
    plain = cost_table(runs[3:], {"sp-8k": once}).to_json()
    assert RETRIED_NOTE not in tables_1_2_markdown(scores, control, plain, ["sp-8k"], 3)


def test_docstring_examples():
    assert_examples_pass("tokstudy.study.control_and_cost")
