"""What is loaded and what is selected: the session state every page reads (the sidebar draws it).

Owns the session-state keys in :data:`KEYS` (and the per-page widget keys made by
:func:`widget_key`). The selection lives in plain keys (:data:`SEL_TOK`, :data:`SEL_DS`),
the one source of truth every page reads. Widgets are views of it:

* each page draws its own widgets (key ``ts_w_tokenizers@errors`` ...): Streamlit drops
  the state of a widget that a run did not draw, so one key shared by all pages would be
  cleaned up on every second page switch and the sidebar would show a stale selection;
* a widget is seeded from the plain key *before* it is drawn, and its ``on_change``
  copies the user's choice back; nothing deletes a widget key after its widget was drawn;
* the forms that add inputs run *before* the selection widgets are drawn (they fill a
  container placed below them), so an added tokenizer or dataset is selected and shown
  in the same run.

The selection is mirrored into the URL (``?tok=a,b&dataset=conll2003:test``, see
:func:`apply_link`), so the address bar is a shareable link to the current view.
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
)

SOURCES = "ts_sources"
SEL_TOK = "ts_sel_tokenizers"
SEL_DS = "ts_sel_dataset"
W_TOK = "ts_w_tokenizers"
W_DS = "ts_w_dataset"
LINKED = "ts_linked"  # the query parameters last applied or written (so a link is applied once)
KEYS = (SOURCES, SEL_TOK, SEL_DS, LINKED)
#: query parameter names of the shareable link (the explorer adds ``sent``).
Q_TOK, Q_DS = "tok", "dataset"


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


def widget_key(base: str, page: str) -> str:
    """The key of a selection widget on ``page`` (``widget_key(W_TOK, "errors")``)."""
    return f"{base}@{page}"


def settings() -> AppSettings:
    return parse_settings()


def sources() -> Sources:
    if SOURCES not in st.session_state:
        st.session_state[SOURCES] = initial_sources(settings().results)
    return st.session_state[SOURCES]


def set_sources(new: Sources) -> None:
    st.session_state[SOURCES] = new


def select_dataset(key: str) -> None:
    """Make ``key`` the selected dataset (the widgets show it from the next draw on)."""
    st.session_state[SEL_DS] = key


def select_tokenizer(name: str) -> None:
    """Add ``name`` to the selected tokenizers."""
    current = list(st.session_state.get(SEL_TOK) or [])
    if name not in current:
        st.session_state[SEL_TOK] = current + [name]


def rename_tokenizer(old: str, new: str) -> None:
    """Rename a loaded tokenizer everywhere (sources and selection); ``ValueError`` for a taken or empty name."""
    srcs = sources().rename_tokenizer(old, new)
    set_sources(srcs)
    st.session_state[SEL_TOK] = [new if n == old else n for n in st.session_state.get(SEL_TOK) or []]


def keep_widget_choice(src_key: str, widget: str) -> None:
    """Copy a selection widget's value back to its plain key (the widgets' ``on_change``)."""
    if widget in st.session_state:  # defensive: a callback never fails on a missing key
        st.session_state[src_key] = st.session_state[widget]


def apply_link() -> None:
    """Apply ``?tok=..&dataset=..`` once, when they differ from what this session last applied or wrote."""
    qp = st.query_params
    tok, ds = qp.get(Q_TOK), qp.get(Q_DS)
    if tok is None and ds is None:
        return
    linked = st.session_state.get(LINKED, {})
    srcs = sources()
    if tok is not None and tok != linked.get(Q_TOK):
        names = {t.name for t in srcs.tokenizers}
        wanted = [n for n in tok.split(",") if n]
        missing = [n for n in wanted if n not in names]
        if missing:
            st.warning(f"linked tokenizer(s) {', '.join(missing)} are not loaded in this session")
        st.session_state[SEL_TOK] = [n for n in wanted if n in names]
    if ds is not None and ds != linked.get(Q_DS):
        if ds in {d.key for d in srcs.datasets}:
            st.session_state[SEL_DS] = ds
        else:
            st.warning(f"linked dataset {ds!r} is not loaded in this session")
    st.session_state[LINKED] = {**linked, Q_TOK: tok, Q_DS: ds}


def write_link(tokenizers: list[str], dataset: str | None) -> None:
    want = {Q_TOK: ",".join(tokenizers), Q_DS: dataset}
    for k, v in want.items():
        if v:
            if st.query_params.get(k) != v:
                st.query_params[k] = v
        elif k in st.query_params:
            del st.query_params[k]
    st.session_state[LINKED] = {**st.session_state.get(LINKED, {}), **want}


def dataset_choice(sel) -> tuple[list[str], list[str]] | None:
    """``(every dataset key, the default pick: the sidebar's dataset)`` for a page that works on several datasets
    under the selected tokenizers; ``None`` after saying what to add in the sidebar (a tokenizer, a dataset)."""
    if not sel.tokenizers:
        st.info("Select one or more tokenizers in the sidebar.")
        return None
    keys = [d.key for d in sel.sources.datasets]
    if not keys:
        st.info("Add a CoNLL file in the sidebar.")
        return None
    return keys, [sel.dataset.key] if sel.dataset else keys[:1]
