"""Languages against each other: a language's segmentation next to its F1, their rank correlation across languages
with a bootstrap interval over languages, and where a larger vocabulary helps most.

Pure functions over plain values: the rows of one (tokenizer, task) each, the task being one language of one
corpus (``masakhaner2-yor-ner``). The analysis stage (:mod:`tokstudy.study.language_analysis`) builds the rows from its
tables and writes what these functions return; nothing here reads a file.

Row fields (:func:`language_rows`): ``tokenizer``, ``task``, ``dataset``, ``language``, ``script``, the additional
segmentation % of the task's test words (``ne``, ``ne_low``, ``ne_high`` for words inside entities, ``all``,
``all_low``, ``all_high`` for every word), the NE − non-NE ``gap`` (percentage points), the share of unknown
pieces (``unknown`` %) and of byte pieces (``byte_pieces`` %: UTF-8 bytes, not whole characters), its F1
(``f1`` = mean over seeds, ``f1_sd``, ``seeds``, ``f1_values``),
the word-level Pearson r of pieces with label errors (``r``, ``r_low``, ``r_high``, ``r_p``) and the odds ratio of
a mislabel per extra piece beyond frequency, entity status and length (``or``, ``or_low``, ``or_high``).

>>> rc = spearman_across([10.0, 20.0, 30.0, 40.0], [80.0, 70.0, 75.0, 50.0], n_resamples=200)
>>> round(rc.rho, 2), rc.n
(-0.8, 4)
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from tokstudy.analysis.stats.welch import welch_difference

#: the segmentation measures correlated with F1 across languages: NE words, all words
MEASURES = ("ne", "all")
#: fewest languages a rank correlation is computed over
MIN_LANGUAGES = 3
_NAN = float("nan")


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman's rho across languages, with a percentile bootstrap interval over languages."""

    rho: float
    """``scipy.stats.spearmanr`` of the languages' values (NaN when undefined: fewer than 3, or a constant side)."""
    p_value: float
    """Its two-sided p-value (scipy's)."""
    low: float
    high: float
    """The interval: percentiles of rho over resamples of the languages (drawn with replacement)."""
    n: int
    """Languages."""
    n_resamples: int
    undefined: int
    """Resamples with no rho (one side constant, e.g. the same language drawn n times): left out of the interval."""
    confidence: float = 0.95


def _row_spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row of ``a`` with the same row of ``b``: Pearson's r of the ranks (ties averaged,
    as ``scipy.stats.spearmanr``); NaN where a row is constant."""
    from scipy.stats import rankdata  # deferred: scipy.stats (~0.5-1 s), imported where used

    ra, rb = rankdata(a, axis=1), rankdata(b, axis=1)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    den = np.sqrt((ra * ra).sum(axis=1) * (rb * rb).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(axis=1) / np.where(den > 0, den, 1.0), np.nan)


def spearman_across(
    x: Sequence[float], y: Sequence[float], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> RankCorrelation:
    """Spearman's rho of ``x`` and ``y`` (one pair per language) with a bootstrap interval over languages.

    The point estimate and p-value are ``scipy.stats.spearmanr``'s. Each resample draws as many languages as
    there are, with replacement, ranks them again and takes Pearson's r of the ranks; the interval is the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of those. The languages are the unit
    resampled because the question is about languages: how sure are we that the languages that segment more
    score lower, given which languages happen to be in the corpus.
    """
    from scipy.stats import spearmanr  # deferred: scipy.stats (~0.5-1 s), imported where used

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError(f"x and y must be two sequences of one length, got {xs.shape} and {ys.shape}")
    n = len(xs)
    if n < MIN_LANGUAGES or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return RankCorrelation(_NAN, _NAN, _NAN, _NAN, n, n_resamples, n_resamples, confidence)
    res = spearmanr(xs, ys)
    idx = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    rhos = _row_spearman(xs[idx], ys[idx])
    ok = rhos[np.isfinite(rhos)]
    tail = (1 - confidence) / 2 * 100
    low, high = (float(v) for v in np.percentile(ok, [tail, 100 - tail])) if len(ok) else (_NAN, _NAN)
    undefined = int(n_resamples - len(ok))
    return RankCorrelation(float(res.statistic), float(res.pvalue), low, high, n, n_resamples, undefined, confidence)


def _float(v) -> float:
    """A number as a float; NaN for a missing one (``None``: NaN as JSON writes it)."""
    return _NAN if v is None else float(v)


def _est(e: dict | None, prefix: str) -> dict:
    e = e or {}
    return {
        prefix: _float(e.get("value")),
        f"{prefix}_low": _float(e.get("low")),
        f"{prefix}_high": _float(e.get("high")),
    }


def language_rows(
    tasks: Sequence[dict],
    segmentation: dict,
    scores: dict,
    correlation: Sequence[dict] = (),
    attribution: Sequence[dict] = (),
    order: Sequence[str] = (),
) -> list[dict]:
    """One row per (tokenizer, task) with a score, tokenizers in ``order`` (smallest vocabulary first).

    ``tasks``: ``{"task", "dataset", "language", "test"}`` per NER task (``test``: the label of its test split in
    ``segmentation``); ``segmentation``: ``{tokenizer: {test label: {"ne": Est, "all": Est, "gap": Est,
    "unknown": Est, "byte_pieces": Est, "script": str}}}`` with ``Est = {"value", "low", "high"}``; ``scores``:
    ``scores.json``;
    ``correlation`` and ``attribution``: the rows of ``correlation.json`` and ``attribution.json`` (``model`` is
    the task).
    """
    r_of = {(c["tokenizer"], c["model"]): c["all"] for c in correlation}
    or_of = {(a["tokenizer"], a["model"]): a for a in attribution}
    rows = []
    for tok in order:
        for t in tasks:
            score = scores.get(t["task"], {}).get(tok)
            if score is None:
                continue
            seg = segmentation.get(tok, {}).get(t["test"], {})
            c, a = r_of.get((tok, t["task"]), {}), or_of.get((tok, t["task"]), {})
            rows.append(
                {
                    "tokenizer": tok,
                    **{k: t[k] for k in ("task", "dataset", "language")},
                    "script": seg.get("script", ""),
                    **_est(seg.get("ne"), "ne"),
                    **_est(seg.get("all"), "all"),
                    "gap": _float((seg.get("gap") or {}).get("value")),
                    "unknown": _float((seg.get("unknown") or {}).get("value")),
                    "byte_pieces": _float((seg.get("byte_pieces") or {}).get("value")),
                    "f1": _float(score["mean"]),
                    "f1_sd": _float(score.get("std")),
                    "seeds": score.get("n", 1),
                    "f1_values": [_float(v) for v in score.get("values", [score["mean"]])],
                    "r": _float(c.get("r")),
                    "r_low": _float(c.get("low")),
                    "r_high": _float(c.get("high")),
                    "r_p": _float(c.get("p_value")),
                    "or": _float(a.get("or_adjusted")),
                    "or_low": _float(a.get("or_adjusted_low")),
                    "or_high": _float(a.get("or_adjusted_high")),
                }
            )
    return rows


def language_groups(rows: Sequence[dict]) -> dict[str, list[str]]:
    """The sets of tasks correlated across languages: each corpus with at least :data:`MIN_LANGUAGES` languages,
    and every task together (``all``) when there are several corpora."""
    tasks_of: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r["task"] not in tasks_of[r["dataset"]]:
            tasks_of[r["dataset"]].append(r["task"])
    groups = {d: ts for d, ts in tasks_of.items() if len(ts) >= MIN_LANGUAGES}
    if len(tasks_of) > 1:
        groups["all"] = [t for ts in tasks_of.values() for t in ts]
    return groups


def cross_language_correlations(
    rows: Sequence[dict], order: Sequence[str], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> list[dict]:
    """Per tokenizer, language group (:func:`language_groups`) and measure (:data:`MEASURES`): Spearman's rho
    across languages between the languages' additional segmentation and their F1 (:func:`spearman_across`)."""
    groups = language_groups(rows)
    out = []
    for tok in order:
        mine = {r["task"]: r for r in rows if r["tokenizer"] == tok}
        for group, tasks in groups.items():
            chosen = [mine[t] for t in tasks if t in mine and math.isfinite(mine[t]["f1"])]
            for measure in MEASURES:
                x = [r[measure] for r in chosen if math.isfinite(r[measure])]
                y = [r["f1"] for r in chosen if math.isfinite(r[measure])]
                rc = spearman_across(x, y, n_resamples=n_resamples, confidence=confidence, seed=seed)
                out.append({"tokenizer": tok, "group": group, "measure": measure, **asdict(rc)})
    return out


def vocabulary_gains(rows: Sequence[dict], order: Sequence[str], confidence: float = 0.95) -> list[dict]:
    """Per task, its F1 at the smallest and the largest vocabulary of ``order`` and the gain, largest gain first.

    With two or more seeds on each side the gain has Welch's interval (``low``, ``high``; NaN otherwise). Beside
    it, the additional segmentation of the task's NE words at both ends: how much the larger vocabulary shortened
    them.
    """
    if len(order) < 2:
        return []
    small, large = order[0], order[-1]
    by = {(r["tokenizer"], r["task"]): r for r in rows}
    out = []
    for task in dict.fromkeys(r["task"] for r in rows):
        a, b = by.get((small, task)), by.get((large, task))
        if a is None or b is None:
            continue
        d = welch_difference(b["f1_values"], a["f1_values"], confidence)
        out.append(
            {
                "task": task,
                "dataset": a["dataset"],
                "language": a["language"],
                "script": a["script"],
                "small": small,
                "large": large,
                "f1_small": a["f1"],
                "f1_large": b["f1"],
                "gain": d["diff"],
                "low": d["low"],
                "high": d["high"],
                "ne_small": a["ne"],
                "ne_large": b["ne"],
            }
        )
    return sorted(out, key=lambda g: -g["gain"] if math.isfinite(g["gain"]) else math.inf)
