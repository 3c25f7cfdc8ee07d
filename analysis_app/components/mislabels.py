"""Errors page widgets: correlation with CI, error rate by pieces, the most over-segmented
mislabelled words with links back to their sentence in the explorer. Owns :data:`KEYS`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis_app.components import bootstrap, cache, charts, downloads, explorer
from analysis_app.services import defaults
from analysis_app.services.loading import InputError
from analysis_app.services.mislabels import bins_frame, correlation_display, correlation_rows, undefined_notes
from tokstudy.errors import TokstudyError

MODEL, TOKENIZER, LINKS = "ts_er_model", "ts_er_tokenizer", "ts_er_link"
KEYS = (MODEL, TOKENIZER, LINKS)


def _ci_label(n_resamples: int) -> str:
    """What the table's "95 % CI" is (empty without resamples)."""
    if not n_resamples:
        return "without intervals (0 resamples)"
    return f"with the 95% sentence-bootstrap interval of r ({n_resamples} resamples)"


def render(sel) -> None:
    loaded = _load(sel)
    if loaded is None:
        return
    pred_src, aligned, results, n = loaded
    _correlation_section(results, pred_src.key, n)
    _error_rate_section(results)
    _mislabelled_section(sel, pred_src, aligned)


def _load(sel):
    """The picked predictions, aligned to the selection, and their correlation results; None (with a message
    on the page) when there is nothing to show."""
    if sel.dataset is None or not sel.tokenizers:
        st.info("Select a dataset and one or more tokenizers in the sidebar.")
        return
    if not sel.predictions:
        st.info(
            f"No model predictions for {sel.dataset.key}. Open a results directory that has "
            "predictions/<model>/<dataset>.tsv, or add a predictions file in the sidebar."
        )
        return
    models = {p.key: p for p in sel.predictions}
    pred_src = models[st.selectbox("Model predictions", list(models), key=MODEL)]
    n, seed = bootstrap.settings()
    try:
        aligned = cache.aligned(sel.dataset, tuple(sel.tokenizers), pred_src)
        results = cache.correlation(sel.dataset, tuple(sel.tokenizers), pred_src, n, seed)
    except InputError as exc:
        st.error(str(exc))
        return
    except TokstudyError as exc:
        st.error(f"these predictions do not fit {sel.dataset.key}: {exc}")
        return
    if aligned.subset:
        st.info(
            f"The predictions {pred_src.key!r} cover the {aligned.subset} of {sel.dataset.key} "
            "(declared in the file): every figure on this page is over those sentences only."
        )
    return pred_src, aligned, results, n


def _correlation_section(results, model: str, n: int) -> None:
    st.subheader("Does segmentation go with errors?")
    # one table (no metric per tokenizer above it: they repeated its numbers and were a fifth of the
    # page's elements); the model is the one picked above, its column stays in the CSV
    first = results[0]
    st.caption(
        f"Pearson and Spearman correlation of a word's pieces with its being mislabelled, per tokenizer, over all "
        f"words and over the words inside entities (NE), {_ci_label(n)}. The model mislabels "
        f"{first.error_rate:.1%} of the words ({first.n_errors} of {first.n_words})."
    )
    corr = correlation_rows(results).assign(model=model)  # the file's model may be a long path
    # exact numbers in the cells, shown to 4 digits; an undefined r reads "undefined", with the reason beside it
    shown = correlation_display(corr).style.format({"Pearson r": "{:.4f}", "Spearman ρ": "{:.4f}"}, na_rep="undefined")
    st.dataframe(shown, width="stretch", hide_index=True)
    for note in undefined_notes(corr):
        st.caption(note)
    downloads.csv_button("Download correlations (CSV)", corr, "correlation.csv")


def _error_rate_section(results) -> None:
    st.subheader("Error rate by number of pieces")
    curves = pd.concat(
        [
            bins_frame(r.by_pieces, "all").assign(tokenizer=r.tokenizer, series=f"{r.tokenizer} (all words)")
            for r in results
        ]
        + [
            bins_frame(r.by_pieces_ne, "NE").assign(tokenizer=r.tokenizer, series=f"{r.tokenizer} (NE words)")
            for r in results
        ],
        ignore_index=True,
    )
    charts.draw(st, "error_rate_line", curves)
    # no table of these 30 numbers: the chart's tooltips and the CSV hold them (a second data grid
    # was a sixth of this page's drawing time in the browser)
    st.caption(
        "Bars: 95% Wilson intervals of each error rate. One panel per word set, one colour per tokenizer; "
        "hover a point for its counts, or download them:"
    )
    downloads.csv_button("Download error rates (CSV)", curves, "error_rate_by_pieces.csv")


def _mislabelled_section(sel, pred_src, aligned) -> None:
    """The mislabelled words with the most pieces, and a link to the sentence of the one picked."""
    st.subheader("Most over-segmented mislabelled words")
    tok = st.selectbox("Pieces under", [t.name for t in sel.tokenizers], key=TOKENIZER)
    words = cache.mislabelled(sel.dataset, tuple(sel.tokenizers), pred_src, tok, defaults.MISLABELLED_SHOWN)
    if words.empty:
        st.success("The model labelled every word correctly.")
        return
    st.dataframe(words, width="stretch", hide_index=True)
    downloads.csv_button(
        f"Download every mislabelled word ({int(aligned.error.sum())}, CSV)",
        lambda: cache.mislabelled(sel.dataset, tuple(sel.tokenizers), pred_src, tok, None),  # on the click
        f"mislabelled_{tok}.csv",
    )
    # one link, to the sentence of the word picked here (a slider and a link per word were a quarter of
    # this page's elements; every one of the words in the table above can be picked)
    labels = [
        f"{row.word}  ({row.n_pieces} pieces: {row.pieces}; gold {row.gold}, predicted {row.predicted})"
        f" - sentence {row.sent_id}"
        for row in words.itertuples()
    ]
    if st.session_state.get(LINKS, 0) >= len(labels):  # fewer words under another selection
        st.session_state.pop(LINKS)
    pick = st.selectbox(
        "Open a word's sentence in the explorer", range(len(labels)), format_func=labels.__getitem__, key=LINKS
    )
    st.page_link(
        "views/explorer.py",
        label=labels[pick],
        query_params=explorer.link_params(sel.dataset.key, int(words.sent_id.iloc[pick])),
        icon=":material/search:",
    )
