"""What a study run found, stated plainly from its own numbers.

Pure functions over the run's result dicts (as written to ``tables/*.json``); nothing
here is hard-coded but the paper's reference figures, which are shown beside ours and
never used to decide anything.

Input shapes (the JSON files of the run's ``tables/`` folder, schemas in ``docs/analysis.md``):

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

#: The mALBERT paper's figures on CoNLL-2003 (Table 4) and its correlation, for reference only.
PAPER_TABLE4 = {
    "32k": {"ne": 120.59, "non_ne": 57.64},
    "64k": {"ne": 85.28, "non_ne": 36.04},
    "128k": {"ne": 62.69, "non_ne": 25.37},
}
PAPER_PEARSON = 0.44


def format_p(p: float) -> str:
    """A p-value for people: ``< 1e-300`` where it underflowed to 0.

    >>> format_p(0.0), format_p(0.0312)
    ('< 1e-300', '0.031')
    """
    return "< 1e-300" if p == 0 else f"{p:.2g}"


@dataclass(frozen=True)
class Finding:
    """One statement about the run, with whether it holds and the numbers behind it."""

    claim: str
    holds: bool | None
    """True / False, or None when the data cannot decide (e.g. overlapping CIs)."""
    evidence: str

    def markdown(self) -> str:
        mark = {True: "**yes**", False: "**no**", None: "**undecided**"}[self.holds]
        return f"- {self.claim} {mark}. {self.evidence}"


def by_vocab(table4: list[dict], vocab_sizes: dict[str, int]) -> list[dict]:
    """The rows of Table 4 from the smallest vocabulary to the largest."""
    return sorted(table4, key=lambda r: vocab_sizes.get(r["tokenizer"], 0))


def ne_more_segmented(table4: list[dict], vocab_sizes: dict[str, int]) -> Finding:
    """Are NE words more segmented than non-NE words at every vocabulary size (CIs disjoint)?"""
    parts, verdicts = [], []
    for row in by_vocab(table4, vocab_sizes):
        tok, ne, non = row["tokenizer"], row["ne"], row["non_ne"]
        verdicts.append(True if ne["low"] > non["high"] else False if ne["high"] < non["low"] else None)
        parts.append(
            f"{tok}: NE {ne['value']:.2f} % [{ne['low']:.2f}, {ne['high']:.2f}] vs non-NE "
            f"{non['value']:.2f} % [{non['low']:.2f}, {non['high']:.2f}]"
        )
    holds = all(v is True for v in verdicts) if all(v is not None for v in verdicts) else None
    if any(v is False for v in verdicts):
        holds = False
    return Finding(
        "NE words are more segmented than other words at every vocabulary size:", holds, "; ".join(parts) + "."
    )


def segmentation_falls_with_vocab(table4: list[dict], vocab_sizes: dict[str, int]) -> Finding:
    """Does additional segmentation fall as the vocabulary grows, for NE and non-NE words?"""
    rows = by_vocab(table4, vocab_sizes)
    order = [r["tokenizer"] for r in rows]
    series = {k: [r[k]["value"] for r in rows] for k in ("ne", "non_ne")}
    holds = all(all(a > b for a, b in zip(v, v[1:])) for v in series.values())
    ev = "; ".join(f"{k.replace('_', '-').upper()}: " + " > ".join(f"{x:.2f}" for x in v) for k, v in series.items())
    return Finding(
        "Additional segmentation decreases as the vocabulary grows:", holds, f"{ev} (sizes {', '.join(order)})."
    )


def correlation_positive(correlation: list[dict], alpha: float = 0.05) -> Finding:
    """Is the word-level correlation between segmentation and errors positive and significant for every model?"""
    parts, ok = [], []
    for row in correlation:
        c = row["all"]
        sig = c["p_value"] < alpha and c["r"] > 0
        ok.append(sig)
        parts.append(
            f"{row['tokenizer']} / {row['model']}: r = {c['r']:.3f} [{c['low']:.3f}, {c['high']:.3f}], "
            f"p {'' if c['p_value'] == 0 else '= '}{format_p(c['p_value'])}, n = {c['n']}"
        )
    return Finding(
        f"A word's segmentation correlates positively and significantly (p < {alpha}) with its label errors "
        f"(paper: r = {PAPER_PEARSON}):",
        all(ok) if ok else None,
        "; ".join(parts) + ".",
    )


def scores_follow_vocab(scores: dict, order: list[str]) -> list[Finding]:
    """For each task: does the score rise with vocabulary size (model order = vocabulary order)?"""
    out = []
    for task, by_model in scores.items():
        means = [by_model[m]["mean"] for m in order if m in by_model]
        if len(means) < 2:
            continue
        metric = next(iter(by_model.values())).get("metric", "score")
        # equal scores (e.g. models that never learnt the task) cannot show a trend
        holds = None if max(means) == min(means) else all(a < b for a, b in zip(means, means[1:]))
        ev = ", ".join(f"{m} {by_model[m]['mean']:.2f} ± {by_model[m]['std']:.2f}" for m in order if m in by_model)
        out.append(Finding(f"{task}: {metric} rises with vocabulary size:", holds, ev + "."))
    return out


def beyond_confounders(attribution: list[dict]) -> Finding:
    """Does a word's extra piece raise its odds of a mislabel with frequency, entity status and length held fixed?

    Decided by :func:`tokstudy.report.attribution.attribution_finding` (every adjusted odds ratio's
    interval above 1) over the rows of ``tables/attribution.json``.
    """
    from tokstudy.report.attribution import CLAIM, attribution_finding

    holds, evidence = attribution_finding(attribution)
    return Finding(CLAIM, holds, evidence)


def pretraining_helps(control: dict, order: list[str]) -> list[Finding]:
    """For each task: does every pre-trained model beat its no-pre-training control?

    ``control`` is ``{task: {model: {"pretrained": {"mean"}, "control": {"mean"}, "diff", "low", "high"}}}``
    (:func:`tokstudy.study.compare.control_comparison`). Per model, *yes* when the 95 % CI of the
    difference (pre-trained - control) lies above 0, *no* when it lies below 0, undecided when it holds
    0 or is undefined (one seed; ``null`` in ``control.json``). The task's verdict is yes when every
    model's is, no when every model's is, otherwise undecided.

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
        holds = True if all(v is True for v in verdicts) else False if all(v is False for v in verdicts) else None
        metric = next(iter(by_model.values())).get("metric", "score")
        out.append(
            Finding(
                f"{task}: pre-training helps ({metric} of the pre-trained model above the same "
                "architecture fine-tuned from random weights, 95 % CI of the difference above 0):",
                holds,
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
