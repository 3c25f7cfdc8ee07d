"""Errors page widgets: correlation with CI, error rate by pieces, the most over-segmented
mislabelled words with links back to their sentence in the explorer. Owns :data:`KEYS`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis_app.components import bootstrap, charts, explorer
from analysis_app.services import cache, defaults
from analysis_app.services.loading import InputError
from analysis_app.services.mislabels import bins_frame, correlation_display, correlation_rows, format_p

MODEL, TOKENIZER, LINKS = "ts_er_model", "ts_er_tokenizer", "ts_er_links"
KEYS = (MODEL, TOKENIZER, LINKS)


def _fmt_r(c) -> str:
    ci = "" if c.low != c.low else f" [{c.low:.3f}, {c.high:.3f}]"
    return f"{c.r:.3f}{ci}"


def render(sel) -> None:
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
    except Exception as exc:
        from tokstudy.errors import TokstudyError

        if not isinstance(exc, TokstudyError):
            raise
        st.error(f"these predictions do not fit {sel.dataset.key}: {exc}")
        return
    if aligned.subset:
        st.info(
            f"The predictions {pred_src.key!r} cover the {aligned.subset} of {sel.dataset.key} "
            "(declared in the file): every figure on this page is over those sentences only."
        )

    st.subheader("Does segmentation go with errors?")
    cols = st.columns(len(results))
    for col, res in zip(cols, results):
        col.metric(
            f"Pearson r, {res.tokenizer}", f"{res.all.r:.3f}", help="pieces per word vs word mislabelled (all words)"
        )
        col.caption(
            f"all words: r = {_fmt_r(res.all)}, p = {format_p(res.all.p_value)}, n = {res.all.n}  \n"
            f"NE words: r = {_fmt_r(res.ne)}, p = {format_p(res.ne.p_value)}  \n"
            f"error rate {res.error_rate:.1%} ({res.n_errors} of {res.n_words} words)"
        )
    corr = correlation_rows(results).assign(model=pred_src.key)  # the file's model may be a long path
    num = st.column_config.NumberColumn
    st.dataframe(
        correlation_display(corr),
        width="stretch",
        hide_index=True,
        column_config={c: num(format="%.4f") for c in ("pearson_r", "ci_low", "ci_high", "spearman")},
    )
    st.download_button(
        "Download correlations (CSV)",
        corr.to_csv(index=False).encode("utf-8"),
        file_name="correlation.csv",
        mime="text/csv",
    )

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
    st.download_button(
        "Download error rates (CSV)",
        curves.to_csv(index=False).encode("utf-8"),
        file_name="error_rate_by_pieces.csv",
        mime="text/csv",
    )

    st.subheader("Most over-segmented mislabelled words")
    tok = st.selectbox("Pieces under", [t.name for t in sel.tokenizers], key=TOKENIZER)
    words = cache.mislabelled(sel.dataset, tuple(sel.tokenizers), pred_src, tok, defaults.MISLABELLED_SHOWN)
    if words.empty:
        st.success("The model labelled every word correctly.")
        return
    st.dataframe(words, width="stretch", hide_index=True)
    every = cache.mislabelled(sel.dataset, tuple(sel.tokenizers), pred_src, tok, None)
    st.download_button(
        f"Download every mislabelled word ({len(every)}, CSV)",
        every.to_csv(index=False).encode("utf-8"),
        file_name=f"mislabelled_{tok}.csv",
        mime="text/csv",
    )
    # room for the attribution component (odds ratios per word property), added by its own module
    st.caption("Open a word's sentence in the explorer:")
    n_links = st.slider("links shown", 5, min(50, len(words)), 5, key=LINKS) if len(words) > 5 else len(words)
    for row in words.head(n_links).itertuples():
        st.page_link(
            "pages/explorer.py",
            label=(
                f"{row.word}  ({row.n_pieces} pieces: {row.pieces}; gold {row.gold}, predicted {row.predicted})"
                f" - sentence {row.sent_id}"
            ),
            query_params=explorer.link_params(sel.dataset.key, row.sent_id),
            icon=":material/search:",
        )
