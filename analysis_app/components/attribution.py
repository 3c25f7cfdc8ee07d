"""Errors page widget: the odds ratio of a mislabel per extra piece, holding frequency, entity status and
length fixed (:func:`tokstudy.analysis.model_errors.attribution.attribute_errors`), for the current selection.

Every model of the selection × every selected tokenizer; word frequencies come from the training
split of a registry dataset (the split fine-tuning read); for a dataset file there is none, and the
table says frequency is not controlled. The finding line and the table are the report's
(:mod:`tokstudy.report.attribution`), so the app and the reports show the same numbers. Owns no
session-state key.

The fits (``statsmodels``, a second and more to import, and the training split's word counts) run
beside the page (:mod:`analysis_app.services.background`): the rest of the Errors page is drawn
without waiting for them, this section shows a placeholder until they are done, then the table.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis_app.components import cache, downloads, pending
from analysis_app.services.background import work
from tokstudy.errors import TokstudyError
from tokstudy.report.attribution import finding_markdown

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


def render(sel) -> None:
    """The finding and the odds ratios for the selected dataset, tokenizers and models."""
    if sel.dataset is None or not sel.tokenizers or not sel.predictions:
        return

    st.subheader("Does segmentation predict errors beyond frequency, entity status and length?")
    args = (sel.dataset, tuple(sel.tokenizers), tuple(sel.predictions))
    job = work().submit(cache.attribution, *args)
    # no waiting for a job that is not done: it starts only once this page run has ended (the job
    # waits for page runs), so on a first visit the wait was time lost before the placeholder
    if not job.done():
        pending.render(job, "Fitting the logistic regressions (odds ratios per extra piece) ...")
        return
    try:
        rows, label = cache.attribution(*args)  # the job's value, from the cache
    except TokstudyError as exc:
        st.error(f"these predictions do not fit {sel.dataset.key}: {exc}")
        return
    st.markdown(finding_markdown(rows))
    flat = pd.DataFrame([r.to_json() for r in rows])  # the columns of attribution.csv
    st.dataframe(flat[list(COLUMNS)].rename(columns=COLUMNS), width="stretch", hide_index=True)
    covs = rows[0].covariates if rows else ""
    st.caption(
        "Logistic regression of 'word mislabelled' on its extra pieces (pieces − 1), standard errors clustered by "
        f"sentence; covariates: {covs}. "
        + (f"Word frequencies from `{label}`." if label else "**No training split: frequency is not controlled.**")
    )
    downloads.csv_button("Download odds ratios (CSV)", flat, "attribution.csv")
