"""The sidebar every page shows: what is loaded, what is selected, and forms to add more.

Owns the session-state keys in :data:`KEYS`. Selections live in plain keys (not widget
keys) so they survive page switches; widgets are re-seeded from them on each page.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from analysis_app.services.settings import AppSettings, parse_settings
from analysis_app.services.sources import (
    DatasetSource,
    PredictionSource,
    Sources,
    TokenizerSource,
    initial_sources,
    predictions_for,
)

SOURCES = "ts_sources"
SEL_TOK = "ts_sel_tokenizers"
SEL_DS = "ts_sel_dataset"
W_TOK = "ts_w_tokenizers"
W_DS = "ts_w_dataset"
KEYS = (SOURCES, SEL_TOK, SEL_DS, W_TOK, W_DS)


@dataclass(frozen=True)
class Selection:
    """What the pages work on.

    Attributes:
        tokenizers: the selected tokenizers, in selection order.
        dataset: the selected dataset, or ``None`` when there is none.
        predictions: prediction files for that dataset.
        sources: everything loadable (for pages that pick more, e.g. several datasets).
        settings: what the app was started with.
    """

    tokenizers: tuple[TokenizerSource, ...]
    dataset: DatasetSource | None
    predictions: tuple[PredictionSource, ...]
    sources: Sources
    settings: AppSettings


def settings() -> AppSettings:
    return parse_settings()


def sources() -> Sources:
    if SOURCES not in st.session_state:
        st.session_state[SOURCES] = initial_sources(settings().results)
    return st.session_state[SOURCES]


def set_sources(new: Sources) -> None:
    st.session_state[SOURCES] = new


def select_dataset(key: str) -> None:
    """Make ``key`` the selected dataset (used by links into the explorer)."""
    st.session_state[SEL_DS] = key
    st.session_state.pop(W_DS, None)


def select_tokenizer(name: str) -> None:
    """Add ``name`` to the selected tokenizers."""
    current = list(st.session_state.get(SEL_TOK) or [])
    if name not in current:
        st.session_state[SEL_TOK] = current + [name]
        st.session_state.pop(W_TOK, None)


def _keep(src_key: str, widget_key: str) -> None:
    st.session_state[src_key] = st.session_state[widget_key]


def sidebar() -> Selection:
    """Render the selection widgets and the input forms; returns the current selection."""
    from analysis_app.components import inputs

    srcs = sources()
    sb = st.sidebar
    for note in srcs.notes:
        sb.info(note)
    names = [t.name for t in srcs.tokenizers]
    if SEL_TOK not in st.session_state:
        st.session_state[SEL_TOK] = names[:3]
    chosen = [n for n in st.session_state[SEL_TOK] if n in names]
    if W_TOK not in st.session_state or st.session_state[W_TOK] != chosen:
        st.session_state[W_TOK] = chosen
    sb.multiselect("Tokenizers", names, key=W_TOK, on_change=_keep, args=(SEL_TOK, W_TOK),
                   help="Loaded from the results directory, a path or an upload (below).")
    keys = [d.key for d in srcs.datasets]
    if keys:
        current = st.session_state.get(SEL_DS)
        if current not in keys:
            current = keys[0]
            st.session_state[SEL_DS] = current
        if st.session_state.get(W_DS) != current:
            st.session_state[W_DS] = current
        sb.selectbox("Dataset", keys, key=W_DS, on_change=_keep, args=(SEL_DS, W_DS))
    else:
        sb.caption("No dataset yet: add a CoNLL file below.")
    inputs.render(sb)
    srcs = sources()  # the forms may have added something
    toks = tuple(srcs.tokenizer(n) for n in st.session_state.get(SEL_TOK, []) if n in {t.name for t in srcs.tokenizers})
    ds_key = st.session_state.get(SEL_DS)
    ds = next((d for d in srcs.datasets if d.key == ds_key), None)
    preds = tuple(predictions_for(ds, srcs.predictions)) if ds else ()
    return Selection(toks, ds, preds, srcs, settings())
