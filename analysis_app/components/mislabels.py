"""Errors page widgets: each model's correlation with its own tokenizer (the paired view), one model's errors
against every tokenizer (the crossed view, on demand), error rate by pieces, the most over-segmented mislabelled
words with links back to their sentence in the explorer. Owns :data:`KEYS`.

The paper's r pairs each model with the tokenizer it was trained with; one model's errors under another
tokenizer are a different measure, so that table is shown folded and labelled "crossed"
(:mod:`analysis_app.services.pairing` says which tokenizer is a model's own, or why it is not known)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis_app.components import bootstrap, cache, charts, downloads, explorer
from analysis_app.services import defaults
from analysis_app.services.loading import InputError
from analysis_app.services.mislabels import (
    bins_frame,
    correlation_rows,
    crossed_display,
    paired_display,
    paired_rows,
    pairing_marks,
    undefined_notes,
)
from tokstudy.errors import TokstudyError

MODEL, TOKENIZER, LINKS = "ts_er_model", "ts_er_tokenizer", "ts_er_link"
KEYS = (MODEL, TOKENIZER, LINKS)
#: the tables' numbers, shown to 4 digits; an undefined r reads "undefined", with the reason beside it
_SHOWN = {"formatter": {"Pearson r": "{:.4f}", "Spearman ρ": "{:.4f}", "error rate": "{:.1%}"}, "na_rep": "undefined"}


def _ci_label(n_resamples: int) -> str:
    """What the table's "95 % CI" is (empty without resamples)."""
    if not n_resamples:
        return "without intervals (0 resamples)"
    return f"with the 95% sentence-bootstrap interval of r ({n_resamples} resamples)"


def render(sel) -> None:
    if not _ready(sel):
        return
    n, seed = bootstrap.settings()
    pairings = _paired_section(sel, n, seed)
    loaded = _load(sel, n, seed)
    if loaded is None:
        return
    pred_src, aligned, results = loaded
    own = pairings[pred_src.key].tokenizer
    _crossed_section(results, pred_src.model, own, n)
    _error_rate_section(results, pred_src.model, own)
    _mislabelled_section(sel, pred_src, aligned, own)


def _ready(sel) -> bool:
    """Whether there is a dataset, a tokenizer and a model's predictions; else says what is missing."""
    if sel.dataset is None or not sel.tokenizers:
        st.info("Select a dataset and one or more tokenizers in the sidebar.")
        return False
    if not sel.predictions:
        st.info(
            f"No model predictions for {sel.dataset.key}. Open a results directory that has "
            "predictions/<model>/<dataset>.tsv, or add a predictions file in the sidebar."
        )
        return False
    return True


def _paired_section(sel, n: int, seed: int) -> dict:
    """The paired view: one row per model whose own tokenizer is known, r under that tokenizer; a sentence for
    each model whose tokenizer is not known (or whose predictions do not fit). Returns the pairings by key."""
    st.subheader("Does segmentation go with errors?")
    found = cache.paired(sel.dataset, tuple(sel.tokenizers), sel.predictions, sel.sources.tokenizers, n, seed)
    rows, notes = [], []
    order = [t.name for t in sel.sources.tokenizers]
    # models in the order of their tokenizers (the study's vocabulary sizes, smallest first)
    for pred, pairing, result in sorted(found, key=lambda f: order.index(f[1].tokenizer) if f[1].known else 0):
        if not pairing.known:
            notes.append(
                f"Which tokenizer {pred.model} was trained with is not known: {pairing.reason}. "
                "Its errors are shown only crossed, against each selected tokenizer, below."
            )
        elif isinstance(result, Exception):
            notes.append(f"{pred.model} has no paired row: its predictions do not fit {sel.dataset.key}: {result}")
        else:
            rows.append((pred.model, result))
    if rows:
        st.caption(
            "Each model's errors against the pieces of the tokenizer it was trained with (the paper's measure; "
            "the tokenizer whose vocabulary the model carries): Pearson and Spearman correlation of a word's "
            "pieces with its being mislabelled, one row per model, over all words and over the words inside "
            f"entities (NE), {_ci_label(n)}."
        )
        frame = paired_rows(rows)
        st.dataframe(paired_display(frame).style.format(**_SHOWN), width="stretch", hide_index=True)
        for note in undefined_notes(frame, of_models=True):
            st.caption(note)
        downloads.csv_button("Download paired correlations (CSV)", frame, "correlation_paired.csv")
    for note in notes:
        st.info(note)
    return {pred.key: pairing for pred, pairing, _ in found}


def _load(sel, n: int, seed: int):
    """The picked predictions, aligned to the selection, and their correlation under every selected tokenizer;
    None (with a message on the page) when they do not fit."""
    models = {p.key: p for p in sel.predictions}
    pred_src = models[
        st.selectbox(
            "Model predictions",
            list(models),
            key=MODEL,
            help="The model whose errors the crossed view, the error rates and the mislabelled words below show.",
            # another model: its mislabelled words are shown under its own tokenizer first
            on_change=st.session_state.pop,
            args=(TOKENIZER, None),
        )
    ]
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
    return pred_src, aligned, results


def crossed_label(model: str, own: str | None) -> str:
    """The crossed view's title: what its rows are, and which tokenizer is the model's own."""
    if own is None:
        return f"Crossed: {model}'s errors segmented by each selected tokenizer (its own one is not known)"
    return f"Crossed: {model}'s errors segmented by other tokenizers than its own ({own})"


def _crossed_section(results, model: str, own: str | None, n: int) -> None:
    """One model's errors against each selected tokenizer, folded (open when the model's own is not known:
    then it is the only r the page has for it)."""
    with st.expander(crossed_label(model, own), expanded=own is None):
        first = results[0]
        st.caption(
            f"Crossed: {model}'s errors against the pieces of each selected tokenizer, whether or not it was "
            f'trained with it (column "pairing"), over all words and over the words inside entities (NE), '
            f"{_ci_label(n)}. The model mislabels {first.error_rate:.1%} of the words "
            f"({first.n_errors} of {first.n_words})."
        )
        corr = correlation_rows(results).assign(model=model)  # the file's model may be a long path
        st.dataframe(crossed_display(corr, own).style.format(**_SHOWN), width="stretch", hide_index=True)
        for note in undefined_notes(corr):
            st.caption(note)
        # the CSV's rows say which is the model's own tokenizer too: a file read alone is read as paired
        marked = corr.assign(pairing=pairing_marks(corr["tokenizer"], own))
        downloads.csv_button("Download correlations (CSV)", marked, "correlation.csv")


def _whose(model: str, own: str | None) -> str:
    """Which tokenizer is the model's own, for the captions of the sections on one model's errors."""
    if own is None:
        return f"{model}'s errors under each selected tokenizer; which one it was trained with is not known."
    return (
        f"{model}'s errors under each selected tokenizer: {own} is the one it was trained with, any other is crossed."
    )


def _error_rate_section(results, model: str, own: str | None) -> None:
    st.subheader("Error rate by number of pieces")
    st.caption(_whose(model, own))
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


def _mislabelled_section(sel, pred_src, aligned, own: str | None) -> None:
    """The mislabelled words with the most pieces (under the model's own tokenizer at first, when it is
    selected), and a link to the sentence of the one picked."""
    st.subheader("Most over-segmented mislabelled words")
    names = [t.name for t in sel.tokenizers]
    start = names.index(defaults.pieces_under(names, own))
    tok = st.selectbox("Pieces under", names, index=start, key=TOKENIZER, help=_whose(pred_src.model, own))
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
