"""The sidebar every page shows: what is loaded, what is selected, and forms to add more.

The state it shows lives in :mod:`analysis_app.components.workspace` (its keys, the sources, the
selection); the forms that add inputs in :mod:`analysis_app.components.inputs`. This module draws
both and so imports both; neither imports it.
"""

from __future__ import annotations

import streamlit as st

from analysis_app.components import inputs, workspace
from analysis_app.services import defaults
from analysis_app.services.sources import predictions_for


def render(page: str) -> workspace.Selection:
    """Render the selection widgets and the input forms of ``page``; returns the current selection."""
    workspace.apply_link()
    sb = st.sidebar
    for note in workspace.sources().notes:
        sb.info(note)
    widgets = sb.container()
    inputs.render(sb)  # may add and select inputs: before the widgets below are drawn
    srcs = workspace.sources()
    names = [t.name for t in srcs.tokenizers]
    if workspace.SEL_TOK not in st.session_state:
        st.session_state[workspace.SEL_TOK] = defaults.tokenizer_names(names)
    chosen = [n for n in st.session_state[workspace.SEL_TOK] if n in names]
    st.session_state[workspace.SEL_TOK] = chosen
    wk = workspace.widget_key(workspace.W_TOK, page)
    if st.session_state.get(wk) != chosen:
        st.session_state[wk] = chosen
    widgets.multiselect(
        "Tokenizers",
        names,
        key=wk,
        on_change=workspace.keep_widget_choice,
        args=(workspace.SEL_TOK, wk),
        help="Loaded from the results directory, a path or an upload (below).",
    )
    keys = [d.key for d in srcs.datasets]
    ds = None
    if keys:
        current = st.session_state.get(workspace.SEL_DS)
        if current not in keys:
            current = keys[0]
            st.session_state[workspace.SEL_DS] = current
        wk = workspace.widget_key(workspace.W_DS, page)
        if st.session_state.get(wk) != current:
            st.session_state[wk] = current
        widgets.selectbox("Dataset", keys, key=wk, on_change=workspace.keep_widget_choice, args=(workspace.SEL_DS, wk))
        ds = srcs.dataset(current)
    else:
        widgets.caption("No dataset yet: add a CoNLL file below.")
    workspace.write_link(chosen, ds.key if ds else None)
    toks = tuple(srcs.tokenizer(n) for n in chosen)
    preds = tuple(predictions_for(ds, srcs.predictions)) if ds else ()
    return workspace.Selection(toks, ds, preds, srcs, workspace.settings())
