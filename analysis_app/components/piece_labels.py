"""The explorer's per-piece strips: for every model whose predictions have a per-piece file beside them
(``<stem>.pieces.tsv``), the shown sentence's pieces coloured by their own predicted labels
(:mod:`analysis_app.services.piece_labels`). Owns no session-state key."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analysis_app.services.piece_labels import load_piece_labels, pieces_file, render_piece_labels
from tokstudy.errors import TokstudyError


@st.cache_data(max_entries=8, show_spinner="Reading per-piece predictions ...")
def _labels(path: str, mtime: float):
    return load_piece_labels(path)


def render(sel, words: list[str], sent_id: int) -> None:
    """A strip per model with per-piece predictions for the sentence ``sent_id`` (whose words are ``words``)."""
    for p in sel.predictions:
        path = pieces_file(p.path)
        if path is None:
            continue
        try:
            labels = _labels(str(path), Path(path).stat().st_mtime)
        except (OSError, TokstudyError) as exc:
            st.error(f"per-piece predictions of {p.model!r} cannot be read: {exc}")
            continue
        shown = labels.get(sent_id)
        if shown is None:
            continue
        if [w.word for w in shown] != list(words):
            st.error(f"per-piece predictions {path}: sentence {sent_id} has other words than the dataset's")
            continue
        st.html(render_piece_labels(p.model, shown))
