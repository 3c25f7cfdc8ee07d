"""Adapters from the tokstudy analysis API to the tables and charts the pages show.

No statistic is computed here: every number comes from :mod:`tokstudy.analysis`
(``segmentation_table``, ``additional_segmentation``, ``additional_segmentation_by``,
``segmentation_summary``, ...); this module only reshapes the frozen results into
long-form pandas frames (one row per tokenizer x subset or group) for display,
charts and CSV download.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

SUBSET_LABELS = {"ne": "NE words", "non_ne": "non-NE words", "all": "all words"}


def build_table(datasets: Sequence, segmenters: Sequence):
    """``tokstudy.analysis.table.segmentation_table`` without a progress bar."""
    from tokstudy.analysis.table import segmentation_table

    return segmentation_table(list(datasets), list(segmenters), progress=False)


def _row(tokenizer: str, group: str, est, **extra) -> dict:
    return {
        "tokenizer": tokenizer,
        "group": group,
        "value": est.value,
        "ci_low": est.low,
        "ci_high": est.high,
        "words": est.n_words,
        "sentences": est.n_sentences,
        **extra,
    }


def table4(table, tokenizers: Sequence[str], *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 4 (additional segmentation % of NE / non-NE / all words, with CIs), long form."""
    from tokstudy.analysis.stats import additional_segmentation

    rows = []
    for name in tokenizers:
        res = additional_segmentation(table, name, n_resamples=n_resamples, seed=seed)
        for subset in ("ne", "non_ne", "all"):
            rows.append(_row(name, SUBSET_LABELS[subset], getattr(res, subset), boundary_policy=res.boundary_policy))
    return pd.DataFrame(rows)


def table4_wide(long: pd.DataFrame) -> pd.DataFrame:
    """Table 4 as in the paper: one row per tokenizer, ``value [low, high]`` per subset."""
    cells = long.assign(cell=[_cell(v, lo, hi) for v, lo, hi in zip(long.value, long.ci_low, long.ci_high)])
    wide = cells.pivot(index="tokenizer", columns="group", values="cell")
    order = [c for c in SUBSET_LABELS.values() if c in wide.columns]
    return wide[order].reindex(list(dict.fromkeys(long.tokenizer)))


def grouped(
    table, tokenizers: Sequence[str], by: str, subset: str, *, n_resamples: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Additional segmentation % per entity type / position / language / dataset, long form."""
    from tokstudy.analysis.stats import additional_segmentation_by

    rows = []
    for name in tokenizers:
        res = additional_segmentation_by(table, name, by, subset=subset, n_resamples=n_resamples, seed=seed)
        rows.extend(_row(name, g, e, by=by, subset=subset) for g, e in res.groups.items())
    return pd.DataFrame(
        rows, columns=["tokenizer", "group", "value", "ci_low", "ci_high", "words", "sentences", "by", "subset"]
    )


#: the figures of the summary table, in its column order (byte_fallback: % of pieces that are <0xE1> pieces)
SUMMARY_MEASURES = (
    "additional_segmentation",
    "fertility",
    "continued",
    "unknown",
    "byte_fallback",
    "pieces_per_continued",
)


def summary(table, tokenizers: Sequence[str], *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Fertility, continued words, unknown and byte-fallback pieces ... per tokenizer and subset, long form."""
    from tokstudy.analysis.stats import segmentation_summary

    rows = []
    for name in tokenizers:
        res = segmentation_summary(table, name, n_resamples=n_resamples, seed=seed)
        for subset in ("ne", "non_ne", "all"):
            s = getattr(res, subset)
            for measure in SUMMARY_MEASURES:
                rows.append(_row(name, SUBSET_LABELS[subset], getattr(s, measure), measure=measure))
    return pd.DataFrame(rows)


def _cell(v: float, lo: float, hi: float) -> str:
    if lo != lo:  # NaN: no resamples
        return f"{v:.2f}"
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"
