"""Does segmentation predict a model's errors once frequency, entity status and length are held fixed?

The word-level correlation of pieces and errors (:mod:`tokstudy.analysis.model_errors.correlation`) is
confounded: words inside entities are both more segmented and harder to label, rare words are
both split more and seen less in fine-tuning, long words are split more. Here, for one
tokenizer and one model, a **logistic regression** of ``error`` (the word's predicted tag
differs from its gold tag) on the word's extra pieces (``pieces - 1``) and covariates:

* ``entity_<TYPE>``: the word is inside a gold entity of that type (outside = reference);
* ``position_I``: it is inside an entity but not its first word (B = reference);
* ``log_train_freq``: ``log`` of how often the exact word form occurs in the fine-tuning
  training split (0 when unseen), and ``seen_in_train`` (1 when it occurs at least once);
* ``length_chars``: its length in characters;
* ``lang_<L>``: its language, when the words come from several languages.

Fitted by maximum likelihood with statsmodels (``Logit``); standard errors are clustered by
sentence (words of a sentence are not independent). Reported:

* the **odds ratio per extra piece** ``exp(b)`` with its Wald CI ``exp(b ± z·se)`` and p-value,
  adjusted (with the covariates) and unadjusted (``error ~ extra pieces`` alone);
  ``pieces`` and ``pieces - 1`` give the same slope, so this is also the odds ratio per piece;
* the odds ratios of words of 2, 3 and 4+ pieces against 1-piece words (adjusted), which needs
  no linearity;
* the **partial correlation** of pieces and error given the covariates: Pearson r of the
  residuals of both regressed (OLS, with intercept) on the covariates, p from ``t`` with
  ``n - 2 - k`` degrees of freedom;
* the **error rate by pieces within training-frequency bins** (unseen, 1-9, 10-99, 100+): a
  matched view that needs no model.

Words with no piece at all (possible when a lone boundary piece is dropped) are left out.

>>> # res = attribute_errors(table, read_predictions("preds.tsv"), "sp32k", train=train_split)
>>> # res.adjusted.value, res.adjusted.low, res.adjusted.high   # OR per extra piece [CI]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain

import numpy as np

from tokstudy.analysis.model_errors.aligned_predictions import AlignedPredictions, align_predictions
from tokstudy.analysis.model_errors.correlation import PiecesBin, error_rate
from tokstudy.analysis.model_errors.logit import fit_logit, one_blas_thread
from tokstudy.analysis.model_errors.predictions import Predictions
from tokstudy.analysis.stats.estimates import CONFIDENCE, interval_text
from tokstudy.analysis.table import INSIDE, SegmentationTable
from tokstudy.data.types import Dataset

FREQUENCY_BINS = ("unseen", "1-9", "10-99", "100+")
PIECE_LEVELS = ("1", "2", "3", "4+")


@dataclass(frozen=True)
class OddsRatio:
    """An odds ratio with its Wald interval (from cluster-robust standard errors) and p-value.

    Attributes:
        value: ``exp(b)`` (NaN when the model could not be fitted).
        low: lower bound of the interval.
        high: upper bound.
        p_value: two-sided p-value of ``b = 0``.
    """

    value: float
    low: float
    high: float
    p_value: float

    def __format__(self, spec: str) -> str:
        # a model that could not be fitted has no odds ratio to show
        return "–" if math.isnan(self.value) else interval_text(self, spec)


NAN_OR = OddsRatio(float("nan"), float("nan"), float("nan"), float("nan"))


@dataclass(frozen=True)
class FrequencyCell(PiecesBin):
    """Words of one training-frequency bin and one pieces level, and how many were mislabelled."""

    frequency: str


@dataclass(frozen=True)
class Attribution:
    """What :func:`attribute_errors` measures for one tokenizer and one model.

    Attributes:
        tokenizer: the tokenizer's name.
        model: the model (from the predictions' metadata).
        dataset: the table's label of the predicted dataset.
        n_words: words in the regression.
        n_errors: of them, mislabelled.
        n_sentences: sentences (the clusters of the standard errors).
        covariates: the covariates kept in the adjusted model (constant ones are dropped).
        adjusted: odds ratio per extra piece, with the covariates.
        unadjusted: odds ratio per extra piece, alone.
        by_pieces: adjusted odds ratios of 2, 3, 4+ pieces against 1 piece.
        partial_r: partial correlation of pieces and error given the covariates.
        partial_p: its p-value.
        by_frequency: error rate by pieces within training-frequency bins.
        frequency_source: what the training frequencies were counted on (None: no frequency covariates).
        confidence: coverage of the intervals.
        boundary_policy: how a lone word-boundary piece was counted.
        note: anything the reader must know (a fit that failed, dropped covariates).
    """

    tokenizer: str
    model: str
    dataset: str
    n_words: int
    n_errors: int
    n_sentences: int
    covariates: tuple[str, ...]
    adjusted: OddsRatio
    unadjusted: OddsRatio
    by_pieces: dict[str, OddsRatio]
    partial_r: float
    partial_p: float
    by_frequency: tuple[FrequencyCell, ...]
    frequency_source: str | None
    confidence: float
    boundary_policy: str
    note: str = ""

    @property
    def error_rate(self) -> float:
        return error_rate(self.n_errors, self.n_words)


@dataclass(frozen=True)
class Design:
    """The regression's inputs, one row per word (what the tests refit independently).

    Attributes:
        error: 0/1 per word.
        pieces: pieces per word.
        covariates: ``(n_words, k)`` covariate matrix, no intercept.
        names: the covariates' names.
        sentence: cluster (sentence) of each word.
        train_count: occurrences of the word in the training split (0 without one).
        dropped: covariates left out because they are constant over these words.
    """

    error: np.ndarray
    pieces: np.ndarray
    covariates: np.ndarray
    names: tuple[str, ...]
    sentence: np.ndarray
    train_count: np.ndarray
    dropped: tuple[str, ...]


def word_counts(train: Dataset | Iterable[Dataset] | Mapping[str, int]) -> Counter:
    """Occurrences of each exact word form in the training split(s) (a mapping passes through)."""
    if isinstance(train, Mapping):
        return Counter(train)
    if isinstance(train, Dataset):
        train = [train]
    return Counter(chain.from_iterable(s.words for ds in train for s in ds.sentences))


def design(
    table: SegmentationTable, aligned: AlignedPredictions, tokenizer: str | None, train_counts: Mapping[str, int] | None
) -> Design:
    """The per-word response, pieces and covariates of the regression (see the module docstring)."""
    col = table.column(tokenizer)
    keep = col.n_pieces[aligned.rows] > 0
    rows = aligned.rows[keep]
    err = aligned.error[keep].astype(np.float64)
    pieces = col.n_pieces[rows].astype(np.float64)
    cols: list[np.ndarray] = []
    names: list[str] = []
    etype = table.entity_type_code[rows]
    for k, name in enumerate(table.entity_types):
        cols.append((etype == k).astype(np.float64))
        names.append(f"entity_{name}")
    cols.append((table.position[rows] == INSIDE).astype(np.float64))
    names.append("position_I")
    if train_counts is not None:
        per_type = np.fromiter((train_counts.get(w, 0) for w in table.types), dtype=np.float64, count=len(table.types))
        count = per_type[table.word_type[rows]]
        cols.append(np.log(np.maximum(count, 1.0)))
        names.append("log_train_freq")
        cols.append((count > 0).astype(np.float64))
        names.append("seen_in_train")
    else:
        count = np.zeros(len(rows))
    lengths = np.fromiter(map(len, table.types), dtype=np.float64, count=len(table.types))
    cols.append(lengths[table.word_type[rows]])
    names.append("length_chars")
    lang = table.language_code[rows]
    present = np.unique(lang)
    for code in present[1:]:
        cols.append((lang == code).astype(np.float64))
        names.append(f"lang_{table.languages[int(code)]}")
    x = np.column_stack(cols) if cols else np.zeros((len(rows), 0))
    constant = np.ptp(x, axis=0) == 0 if len(rows) else np.ones(x.shape[1], bool)
    dropped = tuple(n for n, c in zip(names, constant) if c)
    return Design(
        err,
        pieces,
        x[:, ~constant],
        tuple(n for n, c in zip(names, constant) if not c),
        table.sentence[rows],
        count,
        dropped,
    )


def _odds(fitted, j: int) -> OddsRatio:
    if fitted is None:
        return NAN_OR
    params, ci, p = fitted
    return OddsRatio(float(np.exp(params[j])), float(np.exp(ci[j, 0])), float(np.exp(ci[j, 1])), float(p[j]))


def partial_correlation(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> tuple[float, float]:
    """Pearson r of ``x`` and ``y`` after both are regressed (OLS, with intercept) on ``z``; and its p."""
    from scipy import stats  # deferred: scipy.stats (~0.5-1 s), only for a partial correlation's p

    n = len(x)
    zc = np.column_stack([np.ones(n), z])
    rx = x - zc @ np.linalg.lstsq(zc, x, rcond=None)[0]
    ry = y - zc @ np.linalg.lstsq(zc, y, rcond=None)[0]
    den = math.sqrt(float(rx @ rx) * float(ry @ ry))
    df = n - 2 - z.shape[1]
    if den == 0 or df < 1:
        return float("nan"), float("nan")
    r = float(rx @ ry) / den
    r = max(-1.0, min(1.0, r))
    if abs(r) == 1:
        return r, 0.0
    t = r * math.sqrt(df / (1 - r * r))
    return r, float(2 * stats.t.sf(abs(t), df))


def _level(pieces: np.ndarray) -> np.ndarray:
    return np.clip(pieces.astype(np.int64), 1, 4) - 1


def frequency_bins(pieces: np.ndarray, error: np.ndarray, train_count: np.ndarray | None) -> tuple[FrequencyCell, ...]:
    """Error rate by pieces (1, 2, 3, 4+) within training-frequency bins (or one ``all`` bin)."""
    lv = _level(pieces)
    if train_count is None:
        fb, names = np.zeros(len(lv), np.int64), ("all",)
    else:
        fb = np.digitize(train_count, [1, 10, 100]).astype(np.int64)
        names = FREQUENCY_BINS
    key = fb * 4 + lv
    n = np.bincount(key, minlength=4 * len(names))
    e = np.bincount(key, weights=error.astype(np.float64), minlength=4 * len(names))
    return tuple(
        FrequencyCell(
            frequency=names[f], pieces=PIECE_LEVELS[p], n=int(n[f * 4 + p]), n_errors=int(round(e[f * 4 + p]))
        )
        for f in range(len(names))
        for p in range(4)
    )


#: one fitted logit: coefficients, CI bounds ``(k, 2)`` and p-values (intercept first), or None
Fitted = tuple[np.ndarray, np.ndarray, np.ndarray] | None


@dataclass(frozen=True)
class Fits:
    """The models fitted on one :class:`Design` (plain arrays: cheap to send to another process).

    Attributes:
        adjusted: error ~ extra pieces + covariates.
        unadjusted: error ~ extra pieces.
        levels: the pieces levels present beyond 1 (1 = 2 pieces, 2 = 3, 3 = 4+).
        categorical: error ~ one 0/1 column per level in ``levels`` + covariates (None when no level).
        partial_r: partial correlation of pieces and error given the covariates.
        partial_p: its p-value.
        notes: why a model could not be fitted.
    """

    adjusted: Fitted
    unadjusted: Fitted
    levels: tuple[int, ...]
    categorical: Fitted
    partial_r: float
    partial_p: float
    notes: tuple[str, ...]


def fit_design(d: Design, confidence: float) -> Fits:
    """The three logits and the partial correlation of :func:`attribute_errors` on one design."""
    notes = []
    with one_blas_thread():
        extra = d.pieces - 1
        adj, why = fit_logit(d.error, np.column_stack([extra, d.covariates]), d.sentence, confidence)
        if why:
            notes.append(f"adjusted model: {why}")
        un, why = fit_logit(d.error, extra[:, None], d.sentence, confidence)
        if why:
            notes.append(f"unadjusted model: {why}")
        lv = _level(d.pieces)
        levels = [k for k in range(1, 4) if (lv == k).any()]
        dummies = np.column_stack([(lv == k).astype(np.float64) for k in levels]) if levels else np.zeros((len(lv), 0))
        # start from the adjusted fit: k extra pieces at its per-piece slope, the same covariate effects
        start = None if adj is None else np.concatenate([adj[0][:1], adj[0][1] * np.array(levels), adj[0][2:]])
        cat, why = (
            fit_logit(d.error, np.column_stack([dummies, d.covariates]), d.sentence, confidence, start)
            if levels
            else (None, "")
        )
        if why:
            notes.append(f"categorical model: {why}")
        pr, pp = partial_correlation(d.pieces, d.error, d.covariates)
    return Fits(adj, un, tuple(levels), cat, pr, pp, tuple(notes))


def attribute_errors(
    table: SegmentationTable,
    predictions: Predictions | AlignedPredictions,
    tokenizer: str | None = None,
    *,
    train: Dataset | Iterable[Dataset] | Mapping[str, int] | None = None,
    train_label: str | None = None,
    dataset: str | None = None,
    check_gold: bool = True,
    confidence: float = CONFIDENCE,
    fitter: Callable[[Design, float], Fits] | None = None,
) -> Attribution:
    """Odds ratio of a word being mislabelled per extra piece, beyond frequency, entity status and length.

    ``train`` is the fine-tuning training split (a :class:`Dataset`, several, or word counts);
    without it the frequency covariates are left out and the result says so
    (``frequency_source is None``). ``train_label`` names it in the output. See the module
    docstring for the model. ``fitter`` fits the design (default :func:`fit_design`, in this
    process); the CLI passes one that runs the same function in a second process.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    col = table.column(tokenizer)
    aligned = (
        predictions
        if isinstance(predictions, AlignedPredictions)
        else align_predictions(table, predictions, dataset=dataset, check_gold=check_gold)
    )
    counts = None if train is None else word_counts(train)
    if train is not None and train_label is None:
        first = train if isinstance(train, Dataset) else None
        train_label = f"{first.name}:{first.split}" if first is not None else "training words"
    d = design(table, aligned, col.name, counts)
    f = (fitter or fit_design)(d, confidence)
    notes = [f"constant here, left out: {', '.join(d.dropped)}"] if d.dropped else []
    notes += f.notes
    by_pieces = {PIECE_LEVELS[k]: _odds(f.categorical, 1 + i) for i, k in enumerate(f.levels)}
    return Attribution(
        tokenizer=col.name,
        model=aligned.model,
        dataset=aligned.dataset,
        n_words=int(len(d.error)),
        n_errors=int(d.error.sum()),
        n_sentences=int(len(np.unique(d.sentence))),
        covariates=d.names,
        adjusted=_odds(f.adjusted, 1),
        unadjusted=_odds(f.unadjusted, 1),
        by_pieces=by_pieces,
        partial_r=f.partial_r,
        partial_p=f.partial_p,
        by_frequency=frequency_bins(d.pieces, d.error, None if counts is None else d.train_count),
        frequency_source=train_label if counts is not None else None,
        confidence=confidence,
        boundary_policy=col.boundary_policy,
        note="; ".join(notes),
    )
