"""What a study run found, stated plainly from its own numbers.

Pure functions over the run's tables read back typed (:class:`~tokstudy.report.result.ReportResult`, from its
``tables/`` folder by :func:`~tokstudy.report.result.read_study_result`): Table 4's rows
(:class:`~tokstudy.analysis.stats.estimates.AdditionalSegmentation`), the correlation's
(:class:`~tokstudy.analysis.model_errors.correlation.ErrorCorrelation`), the scores
(:class:`~tokstudy.report.scores.Score`) and the control (:class:`~tokstudy.report.scores.ControlComparison`).
Nothing here is hard-coded but the paper's reference figures, which are shown beside ours and never used to
decide anything. A missing interval bound is NaN (``null`` in the JSON).

>>> from tokstudy.analysis.stats.estimates import AdditionalSegmentation, BootstrapSettings, Estimate
>>> est = lambda v: Estimate(v, v - 1, v + 1, 10, 2)
>>> row = lambda t, ne, non: AdditionalSegmentation(t, est(ne), est(non), est(ne), "", BootstrapSettings())
>>> ne_more_segmented([row("a", 90, 40), row("b", 60, 30)], {"a": 1, "b": 2}).holds
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from tokstudy.analysis.model_errors.correlation import ErrorCorrelation
from tokstudy.analysis.stats.estimates import AdditionalSegmentation, Estimate
from tokstudy.analysis.stats.welch import welch_difference
from tokstudy.report.attribution import CLAIM, attribution_finding
from tokstudy.report.attribution_rows import AttributionRow
from tokstudy.report.numbers import format_p
from tokstudy.report.scores import ControlComparison, Score
from tokstudy.report.verdict import NO_FIT, Verdict, outcome_word


@dataclass(frozen=True)
class PaperRow:
    """One row of the mALBERT paper's Table 4 (CoNLL-2003): additional segmentation in %."""

    ne: float
    """Of NE words."""
    non_ne: float
    """Of the other words."""


#: The mALBERT paper's figures on CoNLL-2003 (Table 4, by vocabulary size) and its correlation, for reference only.
PAPER_TABLE4 = {
    "32k": PaperRow(ne=120.59, non_ne=57.64),
    "64k": PaperRow(ne=85.28, non_ne=36.04),
    "128k": PaperRow(ne=62.69, non_ne=25.37),
}
PAPER_PEARSON = 0.44


@dataclass(frozen=True)
class Finding:
    """One statement about the run, its verdict over the cases it was tested in, and the numbers behind it."""

    claim: str
    verdict: Verdict
    """yes / no / mixed / undecided with its counts (:class:`~tokstudy.report.verdict.Verdict`)."""
    evidence: str

    @property
    def holds(self) -> bool | None:
        """True for yes, False for no, None for mixed or undecided."""
        return self.verdict.holds

    def markdown(self) -> str:
        return f"- {self.claim} {self.verdict.markdown()}. {self.evidence}"


def by_vocab(table4: list[AdditionalSegmentation], vocab_sizes: dict[str, int]) -> list[AdditionalSegmentation]:
    """The rows of Table 4 from the smallest vocabulary to the largest."""
    return sorted(table4, key=lambda r: vocab_sizes.get(r.tokenizer, 0))


def _above(a: Estimate, b: Estimate) -> bool | None:
    """Estimate ``a`` above ``b``: True when a's interval lies above b's, False when below, None when they
    overlap or an interval is missing."""
    if math.isnan(a.low) or math.isnan(b.low):
        return None
    return True if a.low > b.high else False if a.high < b.low else None


def ne_more_segmented(table4: list[AdditionalSegmentation], vocab_sizes: dict[str, int]) -> Finding:
    """Are NE words more segmented than non-NE words, per vocabulary size (yes where the CIs are disjoint)?"""
    parts, outcomes = [], []
    for row in by_vocab(table4, vocab_sizes):
        ne, non = row.ne, row.non_ne
        outcomes.append(_above(ne, non))
        parts.append(
            f"{row.tokenizer}: NE {ne.value:.2f} % [{ne.low:.2f}, {ne.high:.2f}] vs non-NE "
            f"{non.value:.2f} % [{non.low:.2f}, {non.high:.2f}]"
        )
    return Finding(
        "NE words are more segmented than other words at every vocabulary size:",
        Verdict.tally(outcomes),
        "; ".join(parts) + ".",
    )


def segmentation_falls_with_vocab(table4: list[AdditionalSegmentation], vocab_sizes: dict[str, int]) -> Finding:
    """Does additional segmentation fall as the vocabulary grows, for NE and non-NE words?

    One case per step from a vocabulary to the next larger one and per group (NE, non-NE): yes when the
    smaller vocabulary's interval lies above the larger one's, no when below, undecided when they overlap.
    """
    rows = by_vocab(table4, vocab_sizes)
    order = [r.tokenizer for r in rows]
    groups = {"NE": [r.ne for r in rows], "NON-NE": [r.non_ne for r in rows]}
    outcomes = [_above(a, b) for ests in groups.values() for a, b in zip(ests, ests[1:])]
    ev = "; ".join(f"{k}: " + " > ".join(f"{e.value:.2f}" for e in ests) for k, ests in groups.items())
    return Finding(
        "Additional segmentation decreases as the vocabulary grows:",
        Verdict.tally(outcomes),
        f"{ev} (sizes {', '.join(order)}; a step counts when the 95 % CIs are disjoint).",
    )


def _finite(v) -> float | None:
    return None if v is None or v != v else float(v)


def correlation_positive(correlation: list[ErrorCorrelation], alpha: float = 0.05) -> Finding:
    """Is the word-level correlation between segmentation and errors positive and significant, per model?

    Per model: yes when r > 0 with p < ``alpha``, no when r < 0 with p < ``alpha``, undecided otherwise,
    no fit where r is undefined (e.g. every word of a group mislabelled).
    """
    parts, outcomes = [], []
    for row in correlation:
        c = row.all
        r, p = _finite(c.r), _finite(c.p_value)
        name = f"{row.tokenizer} / {row.model}"
        if r is None or p is None:
            outcomes.append(NO_FIT)
            parts.append(f"{name}: r undefined, n = {c.n}")
            continue
        outcomes.append((r > 0) if p < alpha and r != 0 else None)
        ci = "" if _finite(c.low) is None else f" [{c.low:.3f}, {c.high:.3f}]"
        parts.append(f"{name}: r = {r:.3f}{ci}, p {'' if p == 0 else '= '}{format_p(p)}, n = {c.n}")
    return Finding(
        f"A word's segmentation correlates positively and significantly (p < {alpha}) with its label errors "
        f"(paper: r = {PAPER_PEARSON}):",
        Verdict.tally(outcomes),
        "; ".join(parts) + ".",
    )


def _rises(lower: Score, upper: Score, alpha: float) -> tuple[bool | None, str]:
    """One step of a score series: Welch's test over the seeds' scores (``values``) of two models."""
    a, b = lower.values, upper.values
    if not a or not b or len(a) < 2 or len(b) < 2:
        return None, "one seed: no test"
    d = welch_difference(b, a)
    if d.p != d.p:
        return None, "no spread: no test"
    outcome = (d.diff > 0) if d.p < alpha else None
    return outcome, f"Welch p = {format_p(d.p)}"


def scores_follow_vocab(scores: dict[str, dict[str, Score]], order: list[str], alpha: float = 0.05) -> list[Finding]:
    """For each task: does the score rise with vocabulary size (model order = vocabulary order)?

    One case per step from a model to the next larger vocabulary: yes when Welch's t-test over the seeds
    finds the larger one better (p < ``alpha``), no when it finds it worse, undecided otherwise or with a
    single seed.
    """
    out = []
    for task, by_model in scores.items():
        models = [m for m in order if m in by_model]
        if len(models) < 2:
            continue
        metric = next(iter(by_model.values())).metric or "score"
        steps = [(a, b, *_rises(by_model[a], by_model[b], alpha)) for a, b in zip(models, models[1:])]
        ev = ", ".join(f"{m} {by_model[m].mean:.2f} ± {by_model[m].std:.2f}" for m in models)
        ev += " (" + "; ".join(f"{a} -> {b}: {why}, {outcome_word(o)}" for a, b, o, why in steps) + ")"
        out.append(
            Finding(f"{task}: {metric} rises with vocabulary size:", Verdict.tally(s[2] for s in steps), ev + ".")
        )
    return out


def beyond_confounders(attribution: Sequence[AttributionRow]) -> Finding:
    """Does a word's extra piece raise its odds of a mislabel with frequency, entity status and length held fixed?

    Decided by :func:`tokstudy.report.attribution.attribution_finding` (per row by its ``RULE``: yes when every
    test the section shows points to more errors with more pieces) over the rows of ``tables/attribution.json``.
    """
    verdict, evidence = attribution_finding(attribution)
    return Finding(CLAIM, verdict, evidence)


def pretraining_helps(control: dict[str, dict[str, ControlComparison]], order: list[str]) -> list[Finding]:
    """For each task: does every pre-trained model beat its no-pre-training control?

    ``control`` is ``{task: {model: ControlComparison}}`` (``control.json`` as
    :func:`~tokstudy.report.scores.control_from_json` reads it). Per model, *yes* when the 95 % CI of the
    difference (pre-trained - control) lies above 0, *no* when it lies below 0, undecided when it holds
    0 or is undefined (one seed; NaN, ``null`` in ``control.json``). The task's verdict over its models follows
    :class:`~tokstudy.report.verdict.Verdict` (yes, no, mixed or undecided, with the counts).

    >>> c = ControlComparison("F1", Score(80.0), Score(60.0), diff=20.0, low=15.0, high=25.0)
    >>> pretraining_helps({"t": {"a": c}}, ["a"])[0].holds
    True
    """
    out = []
    for task, by_model in control.items():
        models = [m for m in order if m in by_model] + [m for m in by_model if m not in order]
        verdicts, parts = [], []
        for m in models:
            c = by_model[m]
            lo, hi = _finite(c.low), _finite(c.high)
            verdicts.append(True if lo is not None and lo > 0 else False if hi is not None and hi < 0 else None)
            ci = f"[{lo:+.2f}, {hi:+.2f}]" if lo is not None else "(no CI: fewer than 2 seeds or no spread)"
            parts.append(
                f"{m}: {c.pretrained.mean:.2f} vs {c.control.mean:.2f} without pre-training, "
                f"difference {c.diff:+.2f} {ci}"
            )
        metric = next(iter(by_model.values())).metric
        out.append(
            Finding(
                f"{task}: pre-training helps ({metric} of the pre-trained model above the same "
                "architecture fine-tuned from random weights, 95 % CI of the difference above 0):",
                Verdict.tally(verdicts),
                "; ".join(parts) + ".",
            )
        )
    return out


def all_findings(
    table4: list[AdditionalSegmentation],
    vocab_sizes: dict[str, int],
    correlation: list[ErrorCorrelation],
    scores: dict[str, dict[str, Score]],
    attribution: Sequence[AttributionRow] | None = None,
    control: dict[str, dict[str, ControlComparison]] | None = None,
) -> list[Finding]:
    """Every finding the report states, in reading order (``attribution``: the attribution's rows,
    :attr:`tokstudy.report.result.ErrorResult.attribution_rows`)."""
    order = [r.tokenizer for r in by_vocab(table4, vocab_sizes)]
    found = [ne_more_segmented(table4, vocab_sizes), segmentation_falls_with_vocab(table4, vocab_sizes)]
    if correlation:
        found.append(correlation_positive(correlation))
    if attribution:
        found.append(beyond_confounders(attribution))
    found.extend(scores_follow_vocab(scores, order))
    if control:
        found.extend(pretraining_helps(control, order))
    return found
