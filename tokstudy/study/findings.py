"""What a study run found, stated plainly from its own numbers.

Pure functions over the ``data`` of the run's tables (:class:`~tokstudy.report.result.ReportResult`, read
back from its ``tables/`` folder by :func:`~tokstudy.report.result.read_study_result`); nothing here is
hard-coded but the paper's reference figures, which are shown beside ours and never used to decide anything.

Input shapes (schemas in ``docs/analysis.md``):

* ``table4``: the rows of ``table4.json``, ``[{"tokenizer", "ne": Est, "non_ne": Est, "all": Est, ...}]``
  where ``Est = {"value": float, "low": float, "high": float, ...}`` (additional segmentation %),
  with ``vocab_sizes`` ``{tokenizer: int}`` to order them;
* ``correlation``: the rows of ``correlation.json``, ``[{"tokenizer", "model", "all": {"r", "p_value",
  "low", "high", "n", ...}, ...}]``;
* ``scores``: ``{task: {model: {"mean", "std", "n", "metric"}}}`` (``scores.json``).

>>> est = lambda v: {"value": v, "low": v - 1, "high": v + 1}
>>> t4 = [{"tokenizer": "a", "ne": est(90), "non_ne": est(40), "all": est(50)},
...       {"tokenizer": "b", "ne": est(60), "non_ne": est(30), "all": est(35)}]
>>> ne_more_segmented(t4, {"a": 1, "b": 2}).holds
True
"""

from __future__ import annotations

from dataclasses import dataclass

from tokstudy.analysis.stats.welch import welch_difference
from tokstudy.report.attribution import CLAIM, attribution_finding
from tokstudy.report.numbers import format_p
from tokstudy.report.verdict import NO_FIT, Verdict, outcome_word

#: The mALBERT paper's figures on CoNLL-2003 (Table 4) and its correlation, for reference only.
PAPER_TABLE4 = {
    "32k": {"ne": 120.59, "non_ne": 57.64},
    "64k": {"ne": 85.28, "non_ne": 36.04},
    "128k": {"ne": 62.69, "non_ne": 25.37},
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


def by_vocab(table4: list[dict], vocab_sizes: dict[str, int]) -> list[dict]:
    """The rows of Table 4 from the smallest vocabulary to the largest."""
    return sorted(table4, key=lambda r: vocab_sizes.get(r["tokenizer"], 0))


def _above(a: dict, b: dict) -> bool | None:
    """Estimate ``a`` above ``b``: True when a's interval lies above b's, False when below, None when they
    overlap or an interval is missing."""
    if a.get("low") is None or b.get("low") is None:
        return None
    return True if a["low"] > b["high"] else False if a["high"] < b["low"] else None


def ne_more_segmented(table4: list[dict], vocab_sizes: dict[str, int]) -> Finding:
    """Are NE words more segmented than non-NE words, per vocabulary size (yes where the CIs are disjoint)?"""
    parts, outcomes = [], []
    for row in by_vocab(table4, vocab_sizes):
        tok, ne, non = row["tokenizer"], row["ne"], row["non_ne"]
        outcomes.append(_above(ne, non))
        parts.append(
            f"{tok}: NE {ne['value']:.2f} % [{ne['low']:.2f}, {ne['high']:.2f}] vs non-NE "
            f"{non['value']:.2f} % [{non['low']:.2f}, {non['high']:.2f}]"
        )
    return Finding(
        "NE words are more segmented than other words at every vocabulary size:",
        Verdict.tally(outcomes),
        "; ".join(parts) + ".",
    )


def segmentation_falls_with_vocab(table4: list[dict], vocab_sizes: dict[str, int]) -> Finding:
    """Does additional segmentation fall as the vocabulary grows, for NE and non-NE words?

    One case per step from a vocabulary to the next larger one and per group (NE, non-NE): yes when the
    smaller vocabulary's interval lies above the larger one's, no when below, undecided when they overlap.
    """
    rows = by_vocab(table4, vocab_sizes)
    order = [r["tokenizer"] for r in rows]
    outcomes = [_above(a[k], b[k]) for k in ("ne", "non_ne") for a, b in zip(rows, rows[1:])]
    series = {k: [r[k]["value"] for r in rows] for k in ("ne", "non_ne")}
    ev = "; ".join(f"{k.replace('_', '-').upper()}: " + " > ".join(f"{x:.2f}" for x in v) for k, v in series.items())
    return Finding(
        "Additional segmentation decreases as the vocabulary grows:",
        Verdict.tally(outcomes),
        f"{ev} (sizes {', '.join(order)}; a step counts when the 95 % CIs are disjoint).",
    )


def _finite(v) -> float | None:
    return None if v is None or v != v else float(v)


def correlation_positive(correlation: list[dict], alpha: float = 0.05) -> Finding:
    """Is the word-level correlation between segmentation and errors positive and significant, per model?

    Per model: yes when r > 0 with p < ``alpha``, no when r < 0 with p < ``alpha``, undecided otherwise,
    no fit where r is undefined (e.g. every word of a group mislabelled).
    """
    parts, outcomes = [], []
    for row in correlation:
        c = row["all"]
        r, p = _finite(c.get("r")), _finite(c.get("p_value"))
        name = f"{row['tokenizer']} / {row['model']}"
        if r is None or p is None:
            outcomes.append(NO_FIT)
            parts.append(f"{name}: r undefined, n = {c.get('n')}")
            continue
        outcomes.append((r > 0) if p < alpha and r != 0 else None)
        ci = "" if _finite(c.get("low")) is None else f" [{c['low']:.3f}, {c['high']:.3f}]"
        parts.append(f"{name}: r = {r:.3f}{ci}, p {'' if p == 0 else '= '}{format_p(p)}, n = {c['n']}")
    return Finding(
        f"A word's segmentation correlates positively and significantly (p < {alpha}) with its label errors "
        f"(paper: r = {PAPER_PEARSON}):",
        Verdict.tally(outcomes),
        "; ".join(parts) + ".",
    )


def _rises(lower: dict, upper: dict, alpha: float) -> tuple[bool | None, str]:
    """One step of a score series: Welch's test over the seeds' scores (``values``) of two models."""
    a, b = lower.get("values"), upper.get("values")
    if not a or not b or len(a) < 2 or len(b) < 2:
        return None, "one seed: no test"
    d = welch_difference(b, a)
    if d["p"] != d["p"]:
        return None, "no spread: no test"
    outcome = (d["diff"] > 0) if d["p"] < alpha else None
    return outcome, f"Welch p = {format_p(d['p'])}"


def scores_follow_vocab(scores: dict, order: list[str], alpha: float = 0.05) -> list[Finding]:
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
        metric = next(iter(by_model.values())).get("metric", "score")
        steps = [(a, b, *_rises(by_model[a], by_model[b], alpha)) for a, b in zip(models, models[1:])]
        ev = ", ".join(f"{m} {by_model[m]['mean']:.2f} ± {by_model[m]['std']:.2f}" for m in models)
        ev += " (" + "; ".join(f"{a} -> {b}: {why}, {outcome_word(o)}" for a, b, o, why in steps) + ")"
        out.append(
            Finding(f"{task}: {metric} rises with vocabulary size:", Verdict.tally(s[2] for s in steps), ev + ".")
        )
    return out


def beyond_confounders(attribution: list[dict]) -> Finding:
    """Does a word's extra piece raise its odds of a mislabel with frequency, entity status and length held fixed?

    Decided by :func:`tokstudy.report.attribution.attribution_finding` (per row by its ``RULE``: yes when every
    test the section shows points to more errors with more pieces) over the rows of ``tables/attribution.json``.
    """
    verdict, evidence = attribution_finding(attribution)
    return Finding(CLAIM, verdict, evidence)


def pretraining_helps(control: dict, order: list[str]) -> list[Finding]:
    """For each task: does every pre-trained model beat its no-pre-training control?

    ``control`` is ``{task: {model: {"pretrained": {"mean"}, "control": {"mean"}, "diff", "low", "high"}}}``
    (:func:`tokstudy.study.control_and_cost.control_comparison`). Per model, *yes* when the 95 % CI of the
    difference (pre-trained - control) lies above 0, *no* when it lies below 0, undecided when it holds
    0 or is undefined (one seed; ``null`` in ``control.json``). The task's verdict over its models follows
    :class:`~tokstudy.report.verdict.Verdict` (yes, no, mixed or undecided, with the counts).

    >>> c = {"t": {"a": {"metric": "F1", "pretrained": {"mean": 80}, "control": {"mean": 60},
    ...                  "diff": 20, "low": 15, "high": 25}}}
    >>> pretraining_helps(c, ["a"])[0].holds
    True
    """
    out = []
    for task, by_model in control.items():
        models = [m for m in order if m in by_model] + [m for m in by_model if m not in order]
        verdicts, parts = [], []
        for m in models:
            c = by_model[m]
            # an undefined bound is NaN in memory and null in control.json
            lo, hi = (None if v is None or v != v else v for v in (c["low"], c["high"]))
            verdicts.append(True if lo is not None and lo > 0 else False if hi is not None and hi < 0 else None)
            ci = f"[{lo:+.2f}, {hi:+.2f}]" if lo is not None else "(no CI: fewer than 2 seeds or no spread)"
            parts.append(
                f"{m}: {c['pretrained']['mean']:.2f} vs {c['control']['mean']:.2f} without pre-training, "
                f"difference {c['diff']:+.2f} {ci}"
            )
        metric = next(iter(by_model.values())).get("metric", "score")
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
    table4: list[dict],
    vocab_sizes: dict[str, int],
    correlation: list[dict],
    scores: dict,
    attribution: list[dict] | None = None,
    control: dict | None = None,
) -> list[Finding]:
    """Every finding the report states, in reading order."""
    order = [r["tokenizer"] for r in by_vocab(table4, vocab_sizes)]
    found = [ne_more_segmented(table4, vocab_sizes), segmentation_falls_with_vocab(table4, vocab_sizes)]
    if correlation:
        found.append(correlation_positive(correlation))
    if attribution:
        found.append(beyond_confounders(attribution))
    found.extend(scores_follow_vocab(scores, order))
    if control:
        found.extend(pretraining_helps(control, order))
    return found
