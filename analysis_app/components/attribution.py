"""Errors page widget: the odds ratio of a mislabel per extra piece, holding frequency, entity status and
length fixed (:func:`tokstudy.analysis.attribution.attribute_errors`), for the current selection.

Every model of the selection × every selected tokenizer; word frequencies come from the training
split of a registry dataset (the split fine-tuning read); for a dataset file there is none, and the
table says frequency is not controlled. The finding line and the table are the report's
(:mod:`tokstudy.report.attribution`), so the app and the reports show the same numbers. Owns no
session-state key.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

COLUMNS = {
    "model": "model",
    "tokenizer": "tokenizer",
    "or_adjusted": "OR per extra piece (adjusted)",
    "or_adjusted_low": "CI low",
    "or_adjusted_high": "CI high",
    "p_adjusted": "p",
    "or_unadjusted": "OR (unadjusted)",
    "partial_r": "partial r",
    "n_words": "words",
    "note": "note",
}


def train_source(dataset):
    """The training split of a registry dataset (``None`` for files and for a training split itself)."""
    from analysis_app.services.sources import DatasetSource

    if dataset.kind != "registry" or dataset.split == "train":
        return None
    return DatasetSource.registry(dataset.name, "train", dataset.language)


@st.cache_data(max_entries=16, show_spinner="Fitting the logistic regressions ...")
def attribution_rows(dataset, tokenizers: tuple, predictions: tuple) -> tuple[list[dict], str | None]:
    """Attribution rows for every (model, tokenizer) and the training split used (cached per selection)."""
    from analysis_app.services import cache
    from tokstudy.analysis.alignment import align_predictions
    from tokstudy.analysis.attribution import attribute_errors, word_counts
    from tokstudy.errors import TokstudyError
    from tokstudy.report.attribution import attribution_rows as rows_of

    table = cache.table_for((dataset,), tokenizers)
    train, label = train_source(dataset), None
    counts = None
    if train is not None:
        try:
            counts, label = word_counts(cache.dataset(train)), train.key
        except (TokstudyError, OSError):  # no training split at the data location: frequency is not controlled
            counts = None
    res = []
    for p in predictions:
        aligned = align_predictions(table, cache.predictions(p), dataset=table.datasets[0])
        aligned = dataclasses.replace(aligned, model=p.key)
        res += [attribute_errors(table, aligned, t.name, train=counts, train_label=label) for t in tokenizers]
    return rows_of(res), label


def render(sel) -> None:
    """The finding and the odds ratios for the selected dataset, tokenizers and models."""
    if sel.dataset is None or not sel.tokenizers or not sel.predictions:
        return
    from tokstudy.errors import TokstudyError
    from tokstudy.report.attribution import finding_markdown

    st.subheader("Does segmentation predict errors beyond frequency, entity status and length?")
    try:
        rows, label = attribution_rows(sel.dataset, tuple(sel.tokenizers), tuple(sel.predictions))
    except TokstudyError as exc:
        st.error(f"these predictions do not fit {sel.dataset.key}: {exc}")
        return
    st.markdown(finding_markdown(rows))
    frame = pd.DataFrame(rows)[list(COLUMNS)].rename(columns=COLUMNS)
    st.dataframe(frame, width="stretch", hide_index=True)
    covs = rows[0]["covariates"] if rows else ""
    st.caption(
        "Logistic regression of 'word mislabelled' on its extra pieces (pieces − 1), standard errors clustered by "
        f"sentence; covariates: {covs}. "
        + (f"Word frequencies from `{label}`." if label else "**No training split: frequency is not controlled.**")
    )
    st.download_button(
        "Download odds ratios (CSV)",
        pd.DataFrame(rows).to_csv(index=False).encode("utf-8"),
        file_name="attribution.csv",
        mime="text/csv",
    )
