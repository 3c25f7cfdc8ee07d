"""Does a word's segmentation go with the model getting its label wrong?

Per word: ``x`` = its number of pieces (or extra pieces, or 1 if continued), ``y`` =
1 if the predicted tag differs from the gold tag. Reported, over all words and over
words inside gold entities: Pearson r and its p-value (``scipy.stats.pearsonr``),
Spearman's rho, a sentence-bootstrap CI of r, and the error rate for words of 1, 2,
3, 4 and 5+ pieces. Entity level: each gold entity's maximum and mean pieces
against whether the model found it exactly (same span and type: conlleval/seqeval
semantics, spans from :func:`tokstudy.data.types.iob2_spans`).

(Pearson r is shift-invariant, so ``n_pieces`` and ``extra_pieces`` give the same r;
both are offered because readers ask for either.)

>>> # res = correlate_errors(table, read_predictions("preds.tsv"), "spm32k")
>>> # res.all.r, res.all.p_value    # the mALBERT paper reports r = 0.44
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.model_errors.aligned_predictions import AlignedPredictions, align_predictions
from tokstudy.analysis.model_errors.predictions import Predictions
from tokstudy.analysis.stats import BootstrapSettings
from tokstudy.analysis.stats.bootstrap import percentile_interval, resample_weights, sentence_sums
from tokstudy.analysis.table import SegmentationTable
from tokstudy.data.types import iob2_spans

MEASURES = ("n_pieces", "extra_pieces", "continued")
PIECE_BINS = ("1", "2", "3", "4", "5+")


@dataclass(frozen=True)
class Correlation:
    """Correlation of segmentation with error over one set of words.

    Attributes:
        r: Pearson correlation (NaN when either vector is constant).
        p_value: two-sided p-value of r (scipy).
        spearman: Spearman's rho.
        spearman_p: its p-value.
        low: lower bound of the bootstrap CI of r (resampling sentences).
        high: upper bound.
        n: number of words (or entities).
        undefined: why r is undefined, in words (empty when it is defined), e.g. "every word of this set
            is mislabelled, so errors do not vary".
    """

    r: float
    p_value: float
    spearman: float
    spearman_p: float
    low: float
    high: float
    n: int
    undefined: str = ""


def error_rate(n_errors: int, n: int) -> float:
    """The share of ``n`` that is wrong; NaN where there is nothing to count (every error rate in
    :mod:`tokstudy.analysis.model_errors` is this one).

    >>> error_rate(3, 12), error_rate(0, 0)
    (0.25, nan)
    """
    return n_errors / n if n else float("nan")


@dataclass(frozen=True)
class PiecesBin:
    """Error (or miss) rate among words (or entities) with a given number of pieces."""

    pieces: str
    n: int
    n_errors: int

    @property
    def error_rate(self) -> float:
        return error_rate(self.n_errors, self.n)


@dataclass(frozen=True)
class EntityView:
    """Gold entities: pieces vs whether the entity was predicted exactly (span and type)."""

    n_entities: int
    n_found: int
    max_pieces: Correlation  # correlation of max pieces with "missed"
    mean_pieces: Correlation  # correlation of mean pieces with "missed"
    by_max_pieces: tuple[PiecesBin, ...]  # miss rate by the entity's max pieces


@dataclass(frozen=True)
class ErrorCorrelation:
    """Everything :func:`correlate_errors` measures for one tokenizer and one predictions file."""

    tokenizer: str
    model: str
    dataset: str
    measure: str
    n_words: int
    n_errors: int
    all: Correlation
    ne: Correlation
    by_pieces: tuple[PiecesBin, ...]
    by_pieces_ne: tuple[PiecesBin, ...]
    entities: EntityView
    boundary_policy: str
    bootstrap: BootstrapSettings

    @property
    def error_rate(self) -> float:
        return error_rate(self.n_errors, self.n_words)


def pearson_spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """Pearson r, p and Spearman rho, p (NaN when undefined, e.g. a constant vector).

    ``scipy.stats.pearsonr`` / ``spearmanr``'s own formulas (two-sided p: r's beta distribution on
    (-1, 1) with a = b = n/2 - 1; rho's t with n - 2 degrees of freedom; rho = Pearson r of the
    average ranks) through ``scipy.special``, so that an interactive first use (the app's Errors
    page) does not wait a second and more for ``scipy.stats`` to import.
    """
    from scipy import special  # deferred: scipy (~100 ms), only when a correlation is computed

    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return (float("nan"),) * 4
    n = len(x)
    r = _pearson_r(x, y)
    ab = n / 2 - 1
    p = float(2 * special.betaincc(ab, ab, (abs(r) + 1) / 2))  # scipy's _SimpleBeta(ab, ab, loc=-1, scale=2).sf
    rho = float(np.corrcoef(_average_ranks(x), _average_ranks(y))[0, 1])  # as spearmanr computes it
    dof = n - 2
    with np.errstate(divide="ignore"):  # rho = +-1: t = +-inf, p = 0 (as spearmanr)
        t = rho * np.sqrt(np.clip(dof / ((np.float64(rho) + 1.0) * (1.0 - rho)), 0.0, None))
    sp = float(2 * special.stdtr(dof, -abs(t)))
    return r, p, rho, sp


def _pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    xm = np.asarray(x, np.float64) - np.mean(x)
    ym = np.asarray(y, np.float64) - np.mean(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.dot(xm / np.linalg.norm(xm), ym / np.linalg.norm(ym))
    return float(np.clip(r, -1.0, 1.0))


def _average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given their average rank (``scipy.stats.rankdata(method="average")``)."""
    _, inverse, counts = np.unique(np.asarray(a), return_inverse=True, return_counts=True)
    last = np.cumsum(counts)  # the highest rank of each distinct value
    return (last - (counts - 1) / 2.0)[inverse.ravel()]


def bootstrap_pearson(x, y, sentence, n_sentences, settings: BootstrapSettings) -> tuple[float, float]:
    """Percentile CI of Pearson r, resampling sentences (r from resampled sums of x, y, x², y², xy)."""
    if settings.n_resamples == 0 or len(x) < 3:
        return float("nan"), float("nan")
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    cols = [np.ones_like(x), x, y, x * x, y * y, x * y]
    m = np.concatenate([sentence_sums(c, sentence, n_sentences) for c in cols], axis=1)
    rs = []
    for w in resample_weights(n_sentences, settings.n_resamples, settings.seed):
        n, sx, sy, sxx, syy, sxy = (w @ m).T
        with np.errstate(invalid="ignore", divide="ignore"):
            rs.append((n * sxy - sx * sy) / np.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy)))
    rs = np.concatenate(rs)
    if not np.isfinite(rs).any():
        return float("nan"), float("nan")
    lo, hi = percentile_interval(rs[:, None], settings.confidence)
    return float(lo[0]), float(hi[0])


def correlation(x, y, sentence, settings: BootstrapSettings) -> Correlation:
    """Pearson/Spearman of ``x`` and ``y`` with a bootstrap CI over the groups in ``sentence``."""
    r, p, rho, sp = pearson_spearman(np.asarray(x, float), np.asarray(y, float))
    _, dense = np.unique(sentence, return_inverse=True)
    lo, hi = (
        bootstrap_pearson(x, y, dense, int(dense.max()) + 1 if len(dense) else 0, settings)
        if np.isfinite(r)
        else (float("nan"),) * 2
    )
    return Correlation(r, p, rho, sp, lo, hi, int(len(x)), "" if np.isfinite(r) else undefined_reason(x, y))


def undefined_reason(pieces, errors) -> str:
    """Why Pearson r of ``pieces`` and ``errors`` (1 = mislabelled) is undefined, in words.

    >>> undefined_reason([1, 2, 3], [1, 1, 1])
    'every word of this set is mislabelled, so errors do not vary and r is undefined'
    >>> undefined_reason([2, 2, 2], [0, 1, 0])
    'every word of this set has the same number of pieces, so r is undefined'
    """
    x, y = np.asarray(pieces, float), np.asarray(errors, float)
    if len(x) < 3:
        return f"{len(x)} word(s) in this set; r needs at least 3"
    if np.ptp(y) == 0:
        which = "every word of this set is mislabelled" if y[0] else "no word of this set is mislabelled"
        return f"{which}, so errors do not vary and r is undefined"
    if np.ptp(x) == 0:
        return "every word of this set has the same number of pieces, so r is undefined"
    return "r is undefined"


def pieces_bins(n_pieces: np.ndarray, errors: np.ndarray) -> tuple[PiecesBin, ...]:
    """Counts and errors for words of 1, 2, 3, 4 and 5+ pieces (0-piece words are left out)."""
    b = np.clip(n_pieces, 0, 5)
    n = np.bincount(b, minlength=6)
    e = np.bincount(b, weights=errors.astype(np.float64), minlength=6)
    return tuple(PiecesBin(PIECE_BINS[k - 1], int(n[k]), int(e[k])) for k in range(1, 6))


def _measure(n_pieces: np.ndarray, measure: str) -> np.ndarray:
    if measure == "n_pieces":
        return n_pieces.astype(np.float64)
    if measure == "extra_pieces":
        return np.maximum(n_pieces - 1, 0).astype(np.float64)
    if measure == "continued":
        return (n_pieces >= 2).astype(np.float64)
    raise ValueError(f"unknown measure {measure!r}; expected one of {MEASURES}")


@dataclass(frozen=True)
class EntitySpans:
    """Every gold entity of aligned predictions: its words ``[first, last)`` (positions in ``aligned.rows``),
    whether the model missed it (not found with the same span and type) and its sentence. The same for
    every tokenizer: :func:`entity_spans` once, then :func:`entity_view` per tokenizer."""

    first: np.ndarray
    last: np.ndarray
    missed: np.ndarray
    sentence: np.ndarray


def entity_spans(table: SegmentationTable, aligned: AlignedPredictions) -> EntitySpans:
    """The gold entities of ``aligned`` (from the file's gold tags) and whether each was found exactly."""
    rows = aligned.rows
    sent = table.sentence[rows]
    bounds = np.flatnonzero(np.diff(sent)) + 1
    starts = np.concatenate([[0], bounds]).tolist()
    ends = np.concatenate([bounds, [len(rows)]]).tolist()
    first, last, missed, ent_sent = [], [], [], []  # each gold entity's rows [first, last) in ``rows``
    for a, b in zip(starts, ends):
        gold = iob2_spans(aligned.gold[a:b])
        if not gold:
            continue
        found = set(iob2_spans(aligned.pred[a:b]))
        for s, e, typ in gold:
            first.append(a + s)
            last.append(a + e)
            missed.append((s, e, typ) not in found)
            ent_sent.append(int(sent[a]))
    return EntitySpans(
        np.asarray(first, dtype=np.int64),
        np.asarray(last, dtype=np.int64),
        np.asarray(missed, dtype=bool),
        np.asarray(ent_sent, dtype=np.int64),
    )


def entity_view(
    table: SegmentationTable,
    aligned: AlignedPredictions,
    n_pieces: np.ndarray,
    settings,
    spans: EntitySpans | None = None,
) -> EntityView:
    """Per gold entity (from the file's gold tags): max/mean pieces vs found exactly.

    ``spans``: :func:`entity_spans` of ``table`` and ``aligned`` when already found (for another tokenizer).
    """
    spans = entity_spans(table, aligned) if spans is None else spans
    first, last, miss, ent_sent = spans.first, spans.last, spans.missed, spans.sentence
    pieces = n_pieces[aligned.rows]
    # max and mean pieces of every entity at once: reduce over [first, last) and skip the gaps between
    edges = np.stack([first, last]).T.ravel()
    padded = np.append(pieces, 0).astype(np.int64)  # ``last`` may be len(pieces): reduceat needs an index there
    max_arr = np.maximum.reduceat(padded, edges)[0::2] if len(first) else np.zeros(0, np.int64)
    sums = np.add.reduceat(padded, edges)[0::2] if len(first) else np.zeros(0, np.int64)
    mean_p = sums / (last - first)
    return EntityView(
        n_entities=len(miss),
        n_found=int((~miss).sum()),
        max_pieces=correlation(max_arr, miss, ent_sent, settings),
        mean_pieces=correlation(mean_p.astype(np.float64), miss, ent_sent, settings),
        by_max_pieces=pieces_bins(max_arr, miss),
    )


def correlate_errors(
    table: SegmentationTable,
    predictions: Predictions | AlignedPredictions,
    tokenizer: str | None = None,
    *,
    dataset: str | None = None,
    measure: str = "n_pieces",
    check_gold: bool = True,
    bootstrap: BootstrapSettings = BootstrapSettings(),
    spans: EntitySpans | None = None,
) -> ErrorCorrelation:
    """Correlate each word's segmentation under ``tokenizer`` with the model's errors.

    ``predictions`` is a :class:`Predictions` (aligned here, raising
    :class:`~tokstudy.errors.AlignmentError` on any mismatch) or an already aligned
    :class:`AlignedPredictions`. ``dataset`` picks the table's dataset when it has several.
    ``spans``: :func:`entity_spans` of the table and the aligned predictions, when already found (they
    are the same for every tokenizer).
    """
    col = table.column(tokenizer)
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}; expected one of {MEASURES}")
    aligned = (
        predictions
        if isinstance(predictions, AlignedPredictions)
        else align_predictions(table, predictions, dataset=dataset, check_gold=check_gold)
    )
    rows = aligned.rows
    err = aligned.error
    npieces = col.n_pieces[rows]
    x = _measure(npieces, measure)
    sent = table.sentence[rows]
    ne = table.inside[rows]
    return ErrorCorrelation(
        tokenizer=col.name,
        model=aligned.model,
        dataset=aligned.dataset,
        measure=measure,
        n_words=int(len(rows)),
        n_errors=int(err.sum()),
        all=correlation(x, err, sent, bootstrap),
        ne=correlation(x[ne], err[ne], sent[ne], bootstrap),
        by_pieces=pieces_bins(npieces, err),
        by_pieces_ne=pieces_bins(npieces[ne], err[ne]),
        entities=entity_view(table, aligned, col.n_pieces, bootstrap, spans),
        boundary_policy=col.boundary_policy,
        bootstrap=bootstrap,
    )
