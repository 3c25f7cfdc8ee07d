"""Adapters for the Errors page: correlation results and mislabelled words, reshaped for display.

Numbers come from :func:`tokstudy.analysis.correlation.correlate_errors` and
:func:`tokstudy.analysis.alignment.align_predictions`; here they are only put into frames.

>>> bins_frame([], "all").empty
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def correlate(table, predictions, tokenizer: str, dataset: str, *, n_resamples: int = 1000, seed: int = 0):
    """``correlate_errors`` for one tokenizer, model and dataset (check_gold off when the file's
    gold tags come from another scheme would hide errors, so it stays on)."""
    from tokstudy.analysis.correlation import correlate_errors

    return correlate_errors(table, predictions, tokenizer, dataset=dataset, n_resamples=n_resamples, seed=seed)


def bins_frame(bins: Sequence, words: str) -> pd.DataFrame:
    """Error rate by number of pieces: one row per bin (1, 2, 3, 4, 5+)."""
    return pd.DataFrame(
        [{"pieces": b.pieces, "words": words, "n": b.n, "errors": b.n_errors, "error_rate": b.error_rate} for b in bins],
        columns=["pieces", "words", "n", "errors", "error_rate"],
    )


def correlation_rows(results: Sequence) -> pd.DataFrame:
    """One row per tokenizer: Pearson r [CI], p-value, Spearman, for all words and NE words."""
    rows = []
    for res in results:
        for subset, c in (("all words", res.all), ("NE words", res.ne)):
            rows.append({
                "tokenizer": res.tokenizer, "model": res.model, "words": subset, "pearson_r": c.r,
                "ci_low": c.low, "ci_high": c.high, "p_value": c.p_value, "spearman": c.spearman,
                "spearman_p": c.spearman_p, "n": c.n,
            })
    return pd.DataFrame(rows)


def mislabelled_words(table, predictions, tokenizer: str, dataset: str, *, limit: int = 50) -> pd.DataFrame:
    """The most segmented words the model got wrong (ties: inside entities first, then order)."""
    from tokstudy.analysis.alignment import align_predictions

    aligned = align_predictions(table, predictions, dataset=dataset)
    wrong = np.flatnonzero(aligned.error)
    if not len(wrong):
        return pd.DataFrame(columns=["word", "pieces", "n_pieces", "gold", "predicted", "sent_id", "word_index"])
    rows = aligned.rows[wrong]
    n = table.n_pieces(tokenizer)[rows]
    order = np.lexsort((rows, ~table.inside[rows], -n))[:limit]
    out = []
    for k in order:
        r, a = int(rows[k]), int(wrong[k])
        out.append({
            "word": table.word(r),
            "pieces": " | ".join(table.pieces_of(tokenizer, r)),
            "n_pieces": int(n[k]),
            "gold": aligned.gold[a],
            "predicted": aligned.pred[a],
            "sent_id": int(table.sent_id[r]),
            "word_index": int(table.word_index[r]),
        })
    return pd.DataFrame(out)
