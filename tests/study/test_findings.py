"""Findings are decided by the run's own numbers and CIs."""

from __future__ import annotations

from tests.report.test_attribution_rule import row as attribution_row
from tokstudy.analysis.model_errors.correlation import Correlation, EntityView, ErrorCorrelation
from tokstudy.analysis.stats.estimates import AdditionalSegmentation, BootstrapSettings, Estimate
from tokstudy.report.scores import ControlComparison, Score, scores_from_json
from tokstudy.study.findings import (
    all_findings,
    correlation_positive,
    ne_more_segmented,
    scores_follow_vocab,
    segmentation_falls_with_vocab,
)

NAN = float("nan")


def est(v, half=1.0):
    return Estimate(v, v - half, v + half, 100, 10)


def t4row(tok, ne, non, all_):
    return AdditionalSegmentation(tok, ne, non, all_, "counted", BootstrapSettings())


def t4(ne, non, half=1.0):
    """Rows of Table 4 (largest vocabulary first, so the order must come from the vocabulary sizes)."""
    rows = [t4row(f"t{i}", est(a, half), est(b, half), est((a + b) / 2)) for i, (a, b) in enumerate(zip(ne, non))]
    return rows[::-1], {f"t{i}": 1000 * (i + 1) for i in range(len(rows))}


def corr(tok, r, p, low, high, n):
    """One row of the correlation, for model ``m``: only ``all`` matters to the finding."""
    c = Correlation(
        NAN if r is None else r, NAN if p is None else p, NAN, NAN, *(NAN if v is None else v for v in (low, high)), n
    )
    entities = EntityView(0, 0, c, c, ())
    return ErrorCorrelation(tok, "m", "d", "n_pieces", n, 0, c, c, (), (), entities, "counted", BootstrapSettings())


def test_ne_more_segmented_requires_disjoint_cis():
    assert ne_more_segmented(*t4([90, 60], [40, 30])).holds is True
    assert ne_more_segmented(*t4([90, 31], [40, 30], half=2)).holds is None  # overlapping at the 2nd size
    split = ne_more_segmented(*t4([90, 20], [40, 30]))  # more at one size, less at the other
    assert split.holds is None and split.verdict.word == "mixed"
    assert split.verdict.counts() == "yes in 1 of 2, no (opposite direction) in 1"
    assert ne_more_segmented(*t4([20, 20], [40, 30])).holds is False  # less at every size


def test_segmentation_falls_with_vocab_checks_every_step():
    assert segmentation_falls_with_vocab(*t4([90, 60, 40], [40, 30, 20])).holds is True
    # one step rises (NE 90 -> 95, CIs disjoint), three fall: mixed, never "no" for "not everywhere"
    mixed = segmentation_falls_with_vocab(*t4([90, 95, 40], [40, 30, 20]))
    assert mixed.holds is None and mixed.verdict.word == "mixed"
    assert "**mixed** (yes in 3 of 4, no (opposite direction) in 1)" in mixed.markdown()
    assert segmentation_falls_with_vocab(*t4([40, 60, 90], [20, 30, 40])).holds is False  # every step rises
    overlapping = segmentation_falls_with_vocab(*t4([90, 89, 88], [40, 39, 38], half=2))
    assert overlapping.verdict.word == "undecided"


def test_correlation_needs_positive_and_significant():
    good = [corr("t", 0.3, 1e-9, 0.25, 0.35, 1000)]
    weak = [corr("t", 0.02, 0.4, -0.03, 0.07, 1000)]
    assert correlation_positive(good).holds is True
    assert correlation_positive(weak).holds is None  # not significant: undecided, not "no"
    assert correlation_positive(weak).verdict.counts() == "undecided in 1 of 1"
    negative = [corr("t", -0.3, 1e-9, -0.35, -0.25, 9)]
    assert correlation_positive(negative).holds is False
    undefined = [corr("u", None, None, None, None, 5)]
    f = correlation_positive(good + undefined)
    assert (
        f.verdict.word == "yes"
        and f.verdict.counts() == "yes in 1 of 2, no fit in 1"
        and "u / m: r undefined" in f.evidence
    )
    assert "t / m: r = 0.300" in correlation_positive(good).evidence


def test_scores_follow_vocab_in_given_order():
    scores = scores_from_json(
        {
            "ner": {
                "a": {"mean": 50, "std": 1, "n": 3, "metric": "F1", "values": [49, 50, 51]},
                "b": {"mean": 55, "std": 1, "n": 3, "metric": "F1", "values": [54, 55, 56]},
            }
        }
    )
    assert scores_follow_vocab(scores, ["a", "b"])[0].holds is True
    assert scores_follow_vocab(scores, ["b", "a"])[0].holds is False


def test_all_findings_renders_markdown():
    found = all_findings(*t4([90, 60], [40, 30]), [], {})
    text = "\n".join(f.markdown() for f in found)
    assert "**yes**" in text and "NE 90.00 %" in text


def test_beyond_confounders_needs_every_adjusted_interval_above_one():
    from tokstudy.study.findings import beyond_confounders

    def row(v, lo, hi):
        return attribution_row((v, lo, hi), model="ner")

    assert beyond_confounders([row(1.2, 1.1, 1.3), row(1.1, 1.02, 1.2)]).holds is True
    f = beyond_confounders([row(1.2, 1.1, 1.3), row(1.01, 0.98, 1.04)])
    assert f.holds is None and f.verdict.word == "mixed"  # one interval holds 1: mixed, not "no"
    assert "1.010 [0.980, 1.040]" in f.evidence and "unadjusted 1.500" in f.evidence
    assert beyond_confounders([row(0.8, 0.7, 0.9)]).holds is False  # below 1: a real no
    assert beyond_confounders([attribution_row((None, None, None))]).holds is None
    t = [t4row("a", est(90), est(40), est(50))]
    assert all_findings(t, {"a": 1}, [], {}, [row(1.2, 1.1, 1.3)])[-1].claim.startswith("Segmentation predicts errors")


def test_pretraining_helps_reads_an_undefined_interval_as_undecided():
    from tokstudy.study.findings import pretraining_helps

    one_seed = {"metric": "F1", "pretrained": {"mean": 80}, "control": {"mean": 60}, "diff": 20}
    for bound in (None, float("nan")):  # null in control.json, NaN in memory
        c = ControlComparison.from_json({**one_seed, "low": bound, "high": bound})
        f = pretraining_helps({"t": {"a": c}}, ["a"])[0]
        assert f.holds is None and "no CI" in f.evidence
    assert (
        pretraining_helps({"t": {"a": ControlComparison("F1", Score(80.0), Score(60.0), 20.0)}}, ["a"])[0].holds is None
    )


def test_scores_follow_vocab_decides_each_step_by_welch():
    def model(values):
        return {"mean": sum(values) / len(values), "std": 0.5, "n": len(values), "metric": "accuracy", "values": values}

    # the committed cpu report's snips-classification: 92.62 -> 92.57 -> 93.90 over 3 seeds each; neither step
    # is significant, so the verdict is undecided, not "no" for 92.57 < 92.62
    scores = scores_from_json(
        {
            "cls": {
                "a": model([92.2, 92.8, 92.86]),
                "b": model([91.6, 93.2, 92.9]),
                "c": model([93.5, 93.9, 94.3]),
            }
        }
    )
    f = scores_follow_vocab(scores, ["a", "b", "c"])[0]
    assert f.verdict.word == "undecided" and f.verdict.counts() == "undecided in 2 of 2"
    assert "a -> b: Welch p = " in f.evidence
    one_seed = scores_from_json({"cls": {"a": model([90.0]), "b": model([95.0])}})
    g = scores_follow_vocab(one_seed, ["a", "b"])[0]
    assert g.holds is None and "one seed: no test" in g.evidence


def test_beyond_confounders_reads_like_the_cpu_report():
    """5 intervals above 1, one holding 1, 3 rows without a fit: mixed with its counts, not "no"."""
    from tokstudy.study.findings import beyond_confounders

    def row(lo, hi):
        return attribution_row(((lo + hi) / 2, lo, hi), tokenizer=f"t{lo}")

    rows = [row(1.01 + i / 100, 1.2) for i in range(5)] + [row(0.94, 1.09)]
    rows += [attribution_row((None, None, None), model="s", tokenizer=f"u{i}") for i in range(3)]
    f = beyond_confounders(rows)
    assert "**mixed** (yes in 5 of 9, undecided in 1, no fit in 3)" in f.markdown()
    assert "no fit for s / u0, s / u1, s / u2" in f.evidence
