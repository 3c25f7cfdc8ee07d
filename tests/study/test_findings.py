"""Findings are decided by the run's own numbers and CIs."""

from __future__ import annotations

from tokstudy.study.findings import (
    all_findings,
    correlation_positive,
    ne_more_segmented,
    scores_follow_vocab,
    segmentation_falls_with_vocab,
)


def est(v, half=1.0):
    return {"value": v, "low": v - half, "high": v + half}


def t4(ne, non, half=1.0):
    """Rows of table4.json (largest vocabulary first, so the order must come from the vocabulary sizes)."""
    rows = [
        {"tokenizer": f"t{i}", "ne": est(a, half), "non_ne": est(b, half), "all": est((a + b) / 2)}
        for i, (a, b) in enumerate(zip(ne, non))
    ]
    return rows[::-1], {f"t{i}": 1000 * (i + 1) for i in range(len(rows))}


def test_ne_more_segmented_requires_disjoint_cis():
    assert ne_more_segmented(*t4([90, 60], [40, 30])).holds is True
    assert ne_more_segmented(*t4([90, 31], [40, 30], half=2)).holds is None  # overlapping at the 2nd size
    assert ne_more_segmented(*t4([90, 20], [40, 30])).holds is False


def test_segmentation_falls_with_vocab_checks_every_step():
    assert segmentation_falls_with_vocab(*t4([90, 60, 40], [40, 30, 20])).holds is True
    assert segmentation_falls_with_vocab(*t4([90, 95, 40], [40, 30, 20])).holds is False


def test_correlation_needs_positive_and_significant():
    good = [{"tokenizer": "t", "model": "m", "all": {"r": 0.3, "p_value": 1e-9, "low": 0.25, "high": 0.35, "n": 1000}}]
    weak = [{"tokenizer": "t", "model": "m", "all": {"r": 0.02, "p_value": 0.4, "low": -0.03, "high": 0.07, "n": 1000}}]
    assert correlation_positive(good).holds is True
    assert correlation_positive(weak).holds is False
    assert "t / m: r = 0.300" in correlation_positive(good).evidence


def test_scores_follow_vocab_in_given_order():
    scores = {
        "ner": {
            "a": {"mean": 50, "std": 1, "n": 3, "metric": "F1"},
            "b": {"mean": 55, "std": 1, "n": 3, "metric": "F1"},
        }
    }
    assert scores_follow_vocab(scores, ["a", "b"])[0].holds is True
    assert scores_follow_vocab(scores, ["b", "a"])[0].holds is False


def test_all_findings_renders_markdown():
    found = all_findings(*t4([90, 60], [40, 30]), [], {})
    text = "\n".join(f.markdown() for f in found)
    assert "**yes**" in text and "NE 90.00 %" in text


def test_beyond_confounders_needs_every_adjusted_interval_above_one():
    from tokstudy.study.findings import beyond_confounders

    def row(v, lo, hi):
        return {
            "model": "ner",
            "tokenizer": "t",
            "or_adjusted": v,
            "or_adjusted_low": lo,
            "or_adjusted_high": hi,
            "or_unadjusted": 1.5,
            "or_unadjusted_low": 1.4,
            "or_unadjusted_high": 1.6,
            "confidence": 0.95,
        }

    assert beyond_confounders([row(1.2, 1.1, 1.3), row(1.1, 1.02, 1.2)]).holds is True
    f = beyond_confounders([row(1.2, 1.1, 1.3), row(1.01, 0.98, 1.04)])
    assert f.holds is False and "1.010 [0.980, 1.040]" in f.evidence and "unadjusted 1.500" in f.evidence
    assert beyond_confounders([{"model": "m", "tokenizer": "t", "or_adjusted": None}]).holds is None
    t = [{"tokenizer": "a", "ne": est(90), "non_ne": est(40), "all": est(50)}]
    assert all_findings(t, {"a": 1}, [], {}, [row(1.2, 1.1, 1.3)])[-1].claim.startswith("Segmentation predicts errors")


def test_pretraining_helps_reads_an_undefined_interval_as_undecided():
    from tokstudy.study.findings import pretraining_helps

    one_seed = {"metric": "F1", "pretrained": {"mean": 80}, "control": {"mean": 60}, "diff": 20}
    for bound in (None, float("nan")):  # null in control.json, NaN in memory
        f = pretraining_helps({"t": {"a": {**one_seed, "low": bound, "high": bound}}}, ["a"])[0]
        assert f.holds is None and "no CI" in f.evidence
