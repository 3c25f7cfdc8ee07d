"""Adapters for the Errors page: correlation results and mislabelled words, reshaped for display.

Numbers come from :func:`tokstudy.analysis.model_errors.correlation.correlate_errors` and
:func:`tokstudy.analysis.model_errors.aligned_predictions.align_predictions`; here they are only put into frames.

>>> bins_frame([], "all").empty
True
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist  # not scipy.stats: a second and more to import on a first visit

import numpy as np
import pandas as pd

from analysis_app.services.columns import interval_text
from tokstudy.analysis.model_errors import correlation as correlation_api  # module: tests can replace its functions
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.stats.estimates import CONFIDENCE, BootstrapSettings
from tokstudy.report.numbers import format_p  # one rule for p-values: the reports'
from tokstudy.report.table3 import SEPARATOR


def correlate(table, aligned, tokenizers: Sequence[str], *, bootstrap: BootstrapSettings = BootstrapSettings()) -> list:
    """``correlate_errors`` for each tokenizer and one model's aligned predictions (tokenizer order).

    The gold entities and whether the model found each (``entity_spans``, a loop over every sentence)
    are the same for every tokenizer: found once.
    """
    spans = correlation_api.entity_spans(table, aligned)
    correlate_errors = correlation_api.correlate_errors
    return [correlate_errors(table, aligned, t, bootstrap=bootstrap, spans=spans) for t in tokenizers]


def align(table, predictions, dataset: str):
    """The library's strict alignment (check_gold stays on: switching it off could hide errors)."""
    return align_predictions(table, predictions, dataset=dataset)


def wilson_interval(errors: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion ``errors / n`` (NaN for ``n == 0``).

    >>> [round(v, 4) for v in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    """
    if n <= 0:
        return float("nan"), float("nan")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = errors / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def bins_frame(bins: Sequence, words: str, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Error rate by number of pieces: one row per bin (1, 2, 3, 4, 5+), with its Wilson interval."""
    rows = []
    for b in bins:
        low, high = wilson_interval(b.n_errors, b.n, confidence)
        rows.append(
            {
                "pieces": b.pieces,
                "words": words,
                "n": b.n,
                "errors": b.n_errors,
                "error_rate": b.error_rate,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows, columns=["pieces", "words", "n", "errors", "error_rate", "ci_low", "ci_high"])


def correlation_rows(results: Sequence) -> pd.DataFrame:
    """One row per tokenizer: Pearson r [CI], p-value, Spearman, for all words and NE words (exact numbers,
    for the CSV; :func:`correlation_display` is the same table for the screen)."""
    rows = []
    for res in results:
        for subset, c in (("all words", res.all), ("NE words", res.ne)):
            rows.append(
                {
                    "tokenizer": res.tokenizer,
                    "model": res.model,
                    "words": subset,
                    "pearson_r": c.r,
                    "ci_low": c.low,
                    "ci_high": c.high,
                    "p_value": c.p_value,
                    "spearman": c.spearman,
                    "spearman_p": c.spearman_p,
                    "n": c.n,
                    "undefined": c.undefined,
                }
            )
    return pd.DataFrame(rows)


def correlation_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`correlation_rows` for reading: the columns named as a reader expects ("Pearson r", "95 % CI"),
    p-values as text (``< 1e-300`` where they underflow), and, where r is undefined, why, in words."""
    out = pd.DataFrame(
        {
            "tokenizer": frame["tokenizer"],
            "word set": frame["words"],
            "Pearson r": frame["pearson_r"],
            "95 % CI": [interval_text(lo, hi) for lo, hi in zip(frame["ci_low"], frame["ci_high"])],
            "p": [format_p(v) for v in frame["p_value"]],
            "Spearman ρ": frame["spearman"],
            "Spearman p": [format_p(v) for v in frame["spearman_p"]],
            "words": frame["n"],
        }
    )
    if (frame["undefined"] != "").any():
        out["why r is undefined"] = frame["undefined"]
    return out


def undefined_notes(frame: pd.DataFrame, *, of_models: bool = False) -> list[str]:
    """One sentence per row of :func:`correlation_rows` whose r is undefined, saying why (``of_models``: rows
    of :func:`paired_rows`, named by their model)."""
    return [
        (
            f"r is undefined for {row.model} with its own tokenizer {row.tokenizer}"
            if of_models
            else f"r is undefined for {row.tokenizer}"
        )
        + f" ({row.words}): {row.undefined}."
        for row in frame.itertuples()
        if row.undefined
    ]


def paired_rows(pairs: Sequence[tuple[str, object]]) -> pd.DataFrame:
    """The paired view: one row per model and word set, r of the model's errors under the tokenizer it was
    trained with; ``pairs`` holds (model, its ``correlate_errors`` result under that tokenizer). The columns of
    :func:`correlation_rows`."""
    frames = [correlation_rows([res]).assign(model=model, error_rate=res.error_rate) for model, res in pairs]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def paired_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`paired_rows` for reading (:func:`correlation_display`): the model and the share of words it
    mislabels first, then its own tokenizer."""
    out = correlation_display(frame).rename(columns={"tokenizer": "own tokenizer"})
    out.insert(0, "model", frame["model"].to_numpy())
    out.insert(1, "error rate", frame["error_rate"].to_numpy())
    return out


def pairing_marks(tokenizers: Sequence[str], own: str | None) -> list[str]:
    """What each tokenizer is to a model trained with ``own``: ``paired`` (its own), ``crossed`` (another), or
    ``pairing unknown`` where ``own`` is ``None``.

    >>> pairing_marks(["a", "b"], "b"), pairing_marks(["a"], None)
    (['crossed', 'paired'], ['pairing unknown'])
    """
    return ["pairing unknown" if own is None else "paired" if t == own else "crossed" for t in tokenizers]


def crossed_display(frame: pd.DataFrame, own: str | None) -> pd.DataFrame:
    """:func:`correlation_display` of one model's errors under each tokenizer, every row marked by
    :func:`pairing_marks` (column ``pairing``)."""
    return correlation_display(frame).assign(pairing=pairing_marks(frame["tokenizer"], own))


def mislabelled_words(table, aligned, tokenizer: str, *, limit: int | None = 50) -> pd.DataFrame:
    """The most segmented words the model got wrong (ties: inside entities first, then order).

    All of them with ``limit=None``.
    """
    wrong = np.flatnonzero(aligned.error)
    if not len(wrong):
        return pd.DataFrame(columns=["word", "pieces", "n_pieces", "gold", "predicted", "sent_id", "word_index"])
    rows = aligned.rows[wrong]
    n = table.n_pieces(tokenizer)[rows]
    order = np.lexsort((rows, ~table.inside[rows], -n))[:limit]  # [:None] keeps all
    out = []
    for k in order:
        r, a = int(rows[k]), int(wrong[k])
        out.append(
            {
                "word": table.word(r),
                "pieces": SEPARATOR.join(table.pieces_of(tokenizer, r)),
                "n_pieces": int(n[k]),
                "gold": aligned.gold[a],
                "predicted": aligned.pred[a],
                "sent_id": int(table.sent_id[r]),
                "word_index": int(table.word_index[r]),
            }
        )
    return pd.DataFrame(out)
