"""The explorer's widgets: text or dataset sentence in, Table 3 (live) out.

Owns the keys in :data:`KEYS`. A link from another page (or a shared address) arrives
as query parameters ``?dataset=<key>&sent=<sent_id>`` (see :func:`link_params`), applied
once by :func:`apply_link` before any widget is drawn; the sentence shown is written back
into the address (``sent``), beside the sidebar's ``tok`` and ``dataset``, so the address
bar is always a link to this view. Predicted tags come from the library's strict
alignment: a file that does not fit the dataset is an error on the page, never a guess.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis_app.components import cache, piece_labels, workspace
from analysis_app.services.explorer import build_view, render_html
from analysis_app.services.loading import InputError
from analysis_app.services.sentences import find_sentence
from analysis_app.services.text import split_words
from tokstudy.errors import TokstudyError

MODE, TEXT, SENT, SEARCH, APPLIED = "ts_ex_mode", "ts_ex_text", "ts_ex_sent", "ts_ex_search", "ts_ex_applied"
LINK_SID = "ts_ex_link_sent_id"
KEYS = (MODE, TEXT, SENT, SEARCH, APPLIED, LINK_SID)
EXAMPLE = "EU rejects German call to boycott British lamb as Peter Blackburn reports from Brussels ."
MODES = {"text": "Type or paste text", "dataset": "Pick a dataset sentence"}


def link_params(dataset_key: str, sent_id: int) -> dict[str, str]:
    """Query parameters that open the explorer on a dataset sentence."""
    return {"dataset": dataset_key, "sent": str(int(sent_id))}


def apply_link() -> None:
    """Apply ``?dataset=..&sent=..`` once (a later widget change is not overridden)."""
    qp = st.query_params
    ds_key, sent = qp.get("dataset"), qp.get("sent")
    if not ds_key or sent is None or st.session_state.get(APPLIED) == (ds_key, sent):
        return
    st.session_state[APPLIED] = (ds_key, sent)
    if ds_key not in {d.key for d in workspace.sources().datasets}:
        st.warning(f"linked dataset {ds_key!r} is not loaded in this session")
        return
    try:
        sent_id = int(sent)
    except ValueError:
        st.warning(f"linked sentence {sent!r} is not a number")
        return
    workspace.select_dataset(ds_key)
    st.session_state[MODE] = "dataset"
    st.session_state[LINK_SID] = sent_id


def _segmenters(sel) -> list:
    out = []
    for src in sel.tokenizers:
        try:
            out.append(cache.segmenter(src))
        except InputError as exc:
            st.error(f"tokenizer {src.name!r} cannot be used: {exc}")
    return out


def _dataset_sentence(sel):
    """(words, tags, predictions, caption) of the chosen dataset sentence, or ``None``."""
    if sel.dataset is None:
        st.info("No dataset loaded: add a CoNLL file in the sidebar, or type text instead.")
        return None
    try:
        ds = cache.dataset(sel.dataset)
    except InputError as exc:
        st.error(str(exc))
        return None
    link_sid = st.session_state.pop(LINK_SID, None)  # a plain key, never a widget's
    if link_sid is not None:
        try:
            st.session_state[SENT] = find_sentence(ds, link_sid)
        except IndexError as exc:
            st.warning(str(exc))
    if st.session_state.get(SENT, 0) >= len(ds):
        st.session_state[SENT] = 0
    c1, c2 = st.columns([1, 2])
    c2.text_input("Find sentences containing a word", key=SEARCH, placeholder="e.g. Blackburn")
    query = st.session_state.get(SEARCH, "").strip()
    if query:
        hits = [i for i, s in enumerate(ds) if query in s.words][:200]
        if hits:
            c2.caption(
                f"{len(hits)} sentence(s){' (first 200)' if len(hits) == 200 else ''}: "
                + ", ".join(map(str, hits[:30]))
            )
        else:
            c2.caption("no sentence contains that word")
    pos = c1.number_input(
        f"Sentence (0 to {len(ds) - 1})", min_value=0, max_value=max(len(ds) - 1, 0), step=1, key=SENT
    )
    sentence = ds[int(pos)]
    preds = {}
    for p in sel.predictions:
        try:
            sp = cache.sentence_predictions(sel.dataset, p)
        except InputError as exc:
            st.error(str(exc))
            continue
        except TokstudyError as exc:
            st.error(f"predictions {p.model!r} do not fit {sel.dataset.key}, so they are not shown: {exc}")
            continue
        preds[p.model] = sp.tags(sentence.sent_id)
        if preds[p.model] is None:
            st.info(
                f"predictions {p.model!r} cover the {sp.subset} of {sel.dataset.key}; this sentence is not among them"
            )
    st.query_params["sent"] = str(sentence.sent_id)
    st.session_state[APPLIED] = (sel.dataset.key, str(sentence.sent_id))
    caption = f"{sel.dataset.key}, sentence {sentence.sent_id}" + (f", line {sentence.line}" if sentence.line else "")
    return list(sentence.words), list(sentence.tags) if sentence.tags else None, preds, caption


def render(sel) -> None:
    segs = _segmenters(sel)
    if not segs:
        st.info("Select one or more tokenizers in the sidebar (or add one there) to see their pieces.")
    mode = st.radio(
        "Input", list(MODES), format_func=MODES.get, horizontal=True, key=MODE, label_visibility="collapsed"
    )
    if mode == "text":
        if "sent" in st.query_params:
            del st.query_params["sent"]
        if TEXT not in st.session_state:
            st.session_state[TEXT] = EXAMPLE
        text = st.text_area("Text (split into words at spaces and punctuation)", key=TEXT, height=90)
        words, tags, preds, caption = split_words(text), None, {}, "typed text (no gold labels)"
    else:
        got = _dataset_sentence(sel)
        if got is None:
            return
        words, tags, preds, caption = got
    if not words:
        st.info("Type some text to segment.")
        return
    if not segs:
        return
    view = build_view(words, tags, segs, preds)
    st.caption(f"{caption}: {len(words)} words")
    cols = st.columns(len(view.tokenizers))
    for col, name in zip(cols, view.tokenizers):
        col.metric(
            name,
            f"{view.n_pieces(name)} pieces",
            f"{view.additional_segmentation(name) * 100:+.1f}% extra",
            delta_color="off",
        )
    st.html(render_html(view, byte_level=[cache.byte_level(t) for t in sel.tokenizers if t.name in view.tokenizers]))
    if mode == "dataset":  # each piece's own label, where a model's per-piece predictions are beside its file
        piece_labels.render(sel, words, int(st.query_params.get("sent", 0)))
    st.caption(" · ".join(f"{t}: {p}" for t, p in zip(view.tokenizers, view.boundary_policies)))
    ds_name, sid = (sel.dataset.key, int(st.query_params.get("sent", 0))) if mode == "dataset" else ("typed text", 0)
    st.download_button(
        "Download this table (CSV, Table-3 layout)",
        pd.DataFrame(view.to_records(dataset=ds_name, sent_id=sid)).to_csv(index=False).encode("utf-8"),
        file_name="segmentation_example.csv",
        mime="text/csv",
    )
