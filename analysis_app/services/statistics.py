"""Adapters from the tokstudy analysis API to the tables and charts the pages show.

No statistic is computed here: every number comes from :mod:`tokstudy.analysis`
(``segmentation_table``, ``additional_segmentation``, ``additional_segmentation_by``,
``segmentation_summary``, ...); this module only reshapes the frozen results into
long-form pandas frames (one row per tokenizer x subset or group) for display,
charts and CSV download. The CSVs keep these frames' field names (``ci_low``, ``ci_high``); the
``*_display`` functions name the same numbers as a reader expects ("95 % CI", "continued words %").
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis_app.services.columns import readable
from tokstudy.analysis.stats import (
    BootstrapSettings,
    additional_segmentation,
    additional_segmentation_by,
    segmentation_summary,
)
from tokstudy.analysis.table import segmentation_table

SUBSET_LABELS = {"ne": "NE words", "non_ne": "non-NE words", "all": "all words"}


def build_table(datasets: Sequence, segmenters: Sequence):
    """``tokstudy.analysis.table.segmentation_table`` without a progress bar."""
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
    rows = []
    for name in tokenizers:
        res = additional_segmentation(table, name, bootstrap=BootstrapSettings(n_resamples, seed=seed))
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
    rows = []
    for name in tokenizers:
        res = additional_segmentation_by(
            table, name, by, subset=subset, bootstrap=BootstrapSettings(n_resamples, seed=seed)
        )
        rows.extend(_row(name, g, e, by=by, subset=subset) for g, e in res.groups.items())
    return pd.DataFrame(
        rows, columns=["tokenizer", "group", "value", "ci_low", "ci_high", "words", "sentences", "by", "subset"]
    )


#: the figures of the summary table, in its column order (byte_fallback: % of pieces that are <0xE1> pieces;
#: byte_pieces: % of pieces that are UTF-8 bytes, not whole characters, byte fallback or byte-level BPE)
SUMMARY_MEASURES = (
    "additional_segmentation",
    "fertility",
    "continued",
    "unknown",
    "byte_fallback",
    "byte_pieces",
    "pieces_per_continued",
)


def summary(table, tokenizers: Sequence[str], *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Fertility, continued words, unknown and byte-fallback pieces ... per tokenizer and subset, long form."""
    rows = []
    for name in tokenizers:
        res = segmentation_summary(table, name, bootstrap=BootstrapSettings(n_resamples, seed=seed))
        for subset in ("ne", "non_ne", "all"):
            s = getattr(res, subset)
            for measure in SUMMARY_MEASURES:
                if getattr(s, measure) is not None:  # byte pieces: not counted in a table from an older Parquet
                    rows.append(_row(name, SUBSET_LABELS[subset], getattr(s, measure), measure=measure))
    return pd.DataFrame(rows)


#: the summary's figures as a reader names them, in :data:`SUMMARY_MEASURES` order
SUMMARY_NAMES = {
    "additional_segmentation": "additional segmentation %",
    "fertility": "fertility (pieces per word)",
    "continued": "continued words %",
    "unknown": "unknown pieces %",
    "byte_fallback": "byte-fallback pieces %",
    "byte_pieces": "byte pieces % (bytes, not whole characters)",
    "pieces_per_continued": "pieces per continued word",
}


def grouped_display(frame: pd.DataFrame, group_name: str = "group") -> pd.DataFrame:
    """:func:`grouped` for reading: the group column named ``group_name`` ("entity type"), the interval
    as one "95 % CI" cell after the value; ``by`` and ``subset`` are left to the table's title.

    >>> f = pd.DataFrame({"tokenizer": ["t"], "group": ["PER"], "value": [120.5], "ci_low": [118.25],
    ...                   "ci_high": [122.75], "words": [10], "sentences": [3], "by": ["entity_type"],
    ...                   "subset": ["ne"]})
    >>> grouped_display(f, "entity type").iloc[0].to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'tokenizer': 't', 'entity type': 'PER', 'additional segmentation %': 120.5, '95 % CI': '[118.25, 122.75]',
     'words': 10, 'sentences': 3}
    """
    names = {"tokenizer": "tokenizer", "group": group_name, "value": "additional segmentation %"}
    frame = frame.rename(columns={"ci_low": "value_low", "ci_high": "value_high"})
    return readable(
        frame, {**names, "words": "words", "sentences": "sentences"}, intervals={"value": "95 % CI"}, digits=2
    )


def summary_display(long: pd.DataFrame) -> pd.DataFrame:
    """:func:`summary` for reading: one row per tokenizer and word set, one column per figure named as in
    :data:`SUMMARY_NAMES` (the figures :func:`summary` holds, in that order)."""
    wide = long.pivot_table(index=["tokenizer", "group"], columns="measure", values="value", sort=False)
    shown = [m for m in SUMMARY_MEASURES if m in wide.columns]
    wide = wide[shown].rename(columns=SUMMARY_NAMES).reset_index().rename(columns={"group": "word set"})
    wide.columns.name = None
    return wide


def _cell(v: float, lo: float, hi: float) -> str:
    if lo != lo:  # NaN: no resamples
        return f"{v:.2f}"
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"
