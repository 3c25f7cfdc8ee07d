"""Languages against each other: a language's segmentation next to its F1, their rank correlation across languages
with a bootstrap interval over languages, and where a larger vocabulary helps most.

Pure functions over typed values: one :class:`~tokstudy.study.language_rows.LanguageRow` per (tokenizer, task),
the task being one language of one corpus (``masakhaner2-yor-ner``), from which the correlations across languages
(:class:`~tokstudy.study.language_rows.CrossLanguageRow`) and the gains of a larger vocabulary
(:class:`~tokstudy.study.language_rows.VocabularyGain`) are computed. The analysis stage
(:mod:`tokstudy.study.language_analysis`) builds the rows from its tables and writes what these functions return;
nothing here reads a file.

>>> rc = spearman_across([10.0, 20.0, 30.0, 40.0], [80.0, 70.0, 75.0, 50.0], BootstrapSettings(200))
>>> round(rc.rho, 2), rc.n
(-0.8, 4)
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Sequence

import numpy as np

from tokstudy.analysis.model_errors.correlation import ErrorCorrelation
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.stats.welch import welch_difference
from tokstudy.report.attribution_rows import AttributionRow, RatioCells
from tokstudy.report.scores import Score
from tokstudy.study.language_rows import (
    CrossLanguageRow,
    LanguageRow,
    LanguageSegmentation,
    RankCorrelation,
    ScoredTask,
    VocabularyGain,
)

#: the segmentation measures correlated with F1 across languages, each read off a row: NE words, all words
MEASURES = {"ne": lambda r: r.ne, "all": lambda r: r.all}
#: fewest languages a rank correlation is computed over
MIN_LANGUAGES = 3
_NAN = float("nan")
#: the adjusted odds ratio of a language without an attribution: NaN in its row
_NO_RATIO = RatioCells(None, None, None)


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
    x: Sequence[float], y: Sequence[float], boot: BootstrapSettings = BootstrapSettings()
) -> RankCorrelation:
    """Spearman's rho of ``x`` and ``y`` (one pair per language) with a bootstrap interval over languages.

    The point estimate and p-value are ``scipy.stats.spearmanr``'s. Each resample draws as many languages as
    there are, with replacement, ranks them again and takes Pearson's r of the ranks (``boot.n_resamples`` times,
    from ``boot.seed``); the interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of
    those. The languages are the unit
    resampled because the question is about languages: how sure are we that the languages that segment more
    score lower, given which languages happen to be in the corpus.
    """
    from scipy.stats import spearmanr  # deferred: scipy.stats (~0.5-1 s), imported where used

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError(f"x and y must be two sequences of one length, got {xs.shape} and {ys.shape}")
    n, (n_resamples, confidence, seed) = len(xs), (boot.n_resamples, boot.confidence, boot.seed)
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


def language_rows(
    tasks: Sequence[ScoredTask],
    segmentation: dict[str, dict[str, LanguageSegmentation]],
    scores: dict[str, dict[str, Score]],
    correlation: Sequence[ErrorCorrelation] = (),
    attribution: Sequence[AttributionRow] = (),
    order: Sequence[str] = (),
) -> list[LanguageRow]:
    """One row per (tokenizer, task) with a score, tokenizers in ``order`` (smallest vocabulary first).

    ``segmentation``: ``{tokenizer: {test label: LanguageSegmentation}}`` (the label of each task's test split,
    :attr:`ScoredTask.test`); ``scores``: ``scores.json``, typed; ``correlation``: the correlation's rows and
    ``attribution`` the attribution's rows (``model`` is the task). A language without a correlation
    or an attribution has NaN there.
    """
    r_of = {(c.tokenizer, c.model): c.all for c in correlation}
    or_of = {(a.tokenizer, a.model): a.adjusted for a in attribution}
    rows = []
    for tok in order:
        for t in tasks:
            score = scores.get(t.task, {}).get(tok)
            if score is None:
                continue
            seg = segmentation.get(tok, {}).get(t.test)
            c, a = r_of.get((tok, t.task)), or_of.get((tok, t.task), _NO_RATIO)
            rows.append(
                LanguageRow(
                    tok,
                    t.task,
                    t.dataset,
                    t.language,
                    *_segmentation(seg),
                    score.mean,
                    score.std,
                    score.n,
                    score.values or (score.mean,),
                    *((c.r, c.low, c.high, c.p_value) if c is not None else (_NAN,) * 4),
                    *(_float(v) for v in (a.value, a.low, a.high)),
                )
            )
    return rows


def _segmentation(seg: LanguageSegmentation | None) -> tuple:
    """A row's script and segmentation figures (NaN without the language's Table 4)."""
    if seg is None:
        return ("",) + (_NAN,) * 9
    byte_pieces = _NAN if seg.byte_pieces is None else seg.byte_pieces.value
    return (seg.script, *_interval(seg.ne), *_interval(seg.all), seg.gap.value, seg.unknown.value, byte_pieces)


def _interval(e: Estimate) -> tuple[float, float, float]:
    return e.value, e.low, e.high


def _float(v) -> float:
    """A number as a float; NaN for a missing one (``None``: NaN as JSON writes it)."""
    return _NAN if v is None else float(v)


def language_groups(rows: Sequence[LanguageRow]) -> dict[str, list[str]]:
    """The sets of tasks correlated across languages: each corpus with at least :data:`MIN_LANGUAGES` languages,
    and every task together (``all``) when there are several corpora."""
    tasks_of: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r.task not in tasks_of[r.dataset]:
            tasks_of[r.dataset].append(r.task)
    groups = {d: ts for d, ts in tasks_of.items() if len(ts) >= MIN_LANGUAGES}
    if len(tasks_of) > 1:
        groups["all"] = [t for ts in tasks_of.values() for t in ts]
    return groups


def cross_language_correlations(
    rows: Sequence[LanguageRow], order: Sequence[str], boot: BootstrapSettings = BootstrapSettings()
) -> list[CrossLanguageRow]:
    """Per tokenizer, language group (:func:`language_groups`) and measure (:data:`MEASURES`): Spearman's rho
    across languages between the languages' additional segmentation and their F1 (:func:`spearman_across`)."""
    groups = language_groups(rows)
    out = []
    for tok in order:
        mine = {r.task: r for r in rows if r.tokenizer == tok}
        for group, tasks in groups.items():
            chosen = [mine[t] for t in tasks if t in mine and math.isfinite(mine[t].f1)]
            for measure, of in MEASURES.items():
                x = [of(r) for r in chosen if math.isfinite(of(r))]
                y = [r.f1 for r in chosen if math.isfinite(of(r))]
                rc = spearman_across(x, y, boot)
                out.append(CrossLanguageRow(tok, group, measure, rc))
    return out


def vocabulary_gains(
    rows: Sequence[LanguageRow], order: Sequence[str], boot: BootstrapSettings = BootstrapSettings()
) -> list[VocabularyGain]:
    """Per task, its F1 at the smallest and the largest vocabulary of ``order`` and the gain, largest gain first.

    With two or more seeds on each side the gain has Welch's interval (``low``, ``high``; NaN otherwise). Beside
    it, the additional segmentation of the task's NE words at both ends: how much the larger vocabulary shortened
    them (``boot``: its confidence is the interval's).
    """
    if len(order) < 2:
        return []
    small, large = order[0], order[-1]
    by = {(r.tokenizer, r.task): r for r in rows}
    out = []
    for task in dict.fromkeys(r.task for r in rows):
        a, b = by.get((small, task)), by.get((large, task))
        if a is None or b is None:
            continue
        d = welch_difference(b.f1_values, a.f1_values, boot.confidence)
        out.append(
            VocabularyGain(
                task,
                a.dataset,
                a.language,
                a.script,
                small,
                large,
                a.f1,
                b.f1,
                d.diff,
                d.low,
                d.high,
                a.ne,
                b.ne,
            )
        )
    return sorted(out, key=lambda g: -g.gain if math.isfinite(g.gain) else math.inf)
