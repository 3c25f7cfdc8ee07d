"""Statistics page widgets: Table 4, grouped additional segmentation, summary figures, CSV downloads.

The tables name their columns for readers ("95 % CI", "continued words %"); the CSVs keep the field names.

Owns the keys in :data:`KEYS`.
"""

from __future__ import annotations

import streamlit as st

from analysis_app.components import bootstrap, cache, charts, downloads, workspace
from analysis_app.services import statistics
from analysis_app.services.loading import InputError
from tokstudy.errors import TokstudyError

DATASETS, BY, SUBSET = "ts_st_datasets", "ts_st_by", "ts_st_subset"
KEYS = (DATASETS, BY, SUBSET)
GROUPINGS = {
    "entity_type": "entity type",
    "position": "B / I / O position",
    "language": "language",
    "dataset": "dataset",
}
SUBSETS = {"ne": "NE words", "non_ne": "non-NE words", "all": "all words"}


def _download(label: str, df, name: str) -> None:
    downloads.csv_button(label, df, name, key=f"dl_{name}")


def render(sel) -> None:
    choice = workspace.dataset_choice(sel)
    if choice is None:
        return
    keys, default = choice
    chosen = st.multiselect(
        "Datasets (several give the by-language and by-dataset views)", keys, default=default, key=DATASETS
    )
    if not chosen:
        st.info("Pick at least one dataset.")
        return
    ds = tuple(sel.sources.dataset(k) for k in chosen)
    toks = tuple(sel.tokenizers)
    n, seed = bootstrap.settings()
    try:
        long = cache.table4(ds, toks, n, seed)
    except (InputError, ValueError, TokstudyError) as exc:  # a tokstudy error (bad tags, empty data): the input
        st.error(str(exc))
        return

    st.subheader("Table 4: additional segmentation (%)")
    st.caption(
        "pieces / words − 1, with a 95% sentence-bootstrap interval" if n else "pieces / words − 1 (no intervals)"
    )
    st.dataframe(statistics.table4_wide(long), width="stretch")
    charts.draw(st, "bars_with_ci", long, x="group", colour="tokenizer", y_title="additional segmentation %")
    _download("Download Table 4 (CSV)", long, "table4.csv")

    st.subheader("By group")
    c1, c2 = st.columns(2)
    by = c1.radio("Group by", list(GROUPINGS), format_func=GROUPINGS.get, horizontal=True, key=BY)
    subset = c2.radio(
        "Words",
        list(SUBSETS),
        format_func=SUBSETS.get,
        horizontal=True,
        key=SUBSET,
        index=0 if by in ("entity_type", "position") else 2,
    )
    grouped = cache.grouped(ds, toks, by, subset, n, seed)
    if grouped.empty:
        st.info("No words in this grouping (e.g. no entities for NE words).")
    else:
        charts.draw(
            st,
            "bars_with_ci",
            grouped,
            x="group",
            colour="tokenizer",
            y_title="additional segmentation %",
            title=f"{SUBSETS[subset]} by {GROUPINGS[by]}",
        )
        shown = statistics.grouped_display(grouped, GROUPINGS[by])
        st.dataframe(shown.style.format({"additional segmentation %": "{:.2f}"}), width="stretch", hide_index=True)
        _download("Download this grouping (CSV)", grouped, f"additional_segmentation_by_{by}_{subset}.csv")

    st.subheader("Fertility, continued words, unknown, byte-fallback and byte pieces")
    summ = cache.summary(ds, toks, n, seed)
    wide = statistics.summary_display(summ)
    st.dataframe(wide.style.format(precision=3, na_rep="–"), width="stretch", hide_index=True)
    _download("Download the summary (CSV)", summ, "segmentation_summary.csv")
    st.caption(
        "Boundary policy: " + "; ".join(f"{t}: {p}" for t, p in dict(zip(long.tokenizer, long.boundary_policy)).items())
    )
