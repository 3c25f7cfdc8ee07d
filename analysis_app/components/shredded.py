"""Shredded words page widgets: the words each tokenizer splits into K+ pieces, most frequent first, side by
side across tokenizers, each word opening its sentences in the explorer. Owns the keys in :data:`KEYS`.

The tables are ``st.dataframe`` (sortable by any column with a click on its header); the figures are the
library's (:mod:`tokstudy.analysis.stats.shredded`), laid out by :mod:`analysis_app.services.shredded`.
"""

from __future__ import annotations

import streamlit as st

from analysis_app.components import cache, downloads, explorer, workspace
from analysis_app.services import shredded as shredded_svc
from analysis_app.services.loading import InputError
from tokstudy.errors import TokstudyError

DATASETS, K, LANGUAGE, WORD = "ts_sh_datasets", "ts_sh_k", "ts_sh_language", "ts_sh_word"
KEYS = (DATASETS, K, LANGUAGE, WORD)
#: sentences linked per word
LINKED = 10


def render(sel) -> None:
    choice = workspace.dataset_choice(sel)
    if choice is None:
        return
    keys, default = choice
    c1, c2 = st.columns([3, 1])
    chosen = c1.multiselect(
        "Datasets (several languages: one ranking per language)", keys, default=default, key=DATASETS
    )
    k = c2.number_input("K: shredded at this many pieces or more", min_value=2, max_value=20, value=3, key=K)
    if not chosen:
        st.info("Pick at least one dataset.")
        return
    ds = tuple(sel.sources.dataset(c) for c in chosen)
    toks = tuple(sel.tokenizers)
    try:
        result = cache.shredded(ds, toks, int(k))
        table = cache.table_for(ds, toks)
    except (InputError, ValueError, TokstudyError) as exc:  # a tokstudy error (bad tags, empty data): the input
        st.error(str(exc))
        return
    _summary(result, int(k))
    language = _language(result)
    _ranking(result, language)
    _side_by_side(result, language)
    _sentences(sel, table, result, language, chosen)


def _summary(result, k: int) -> None:
    st.subheader(f"How much of the text is shredded ({k}+ pieces)")
    st.caption(
        "token share %: the pieces of the shredded words' occurrences over all pieces of the text; shredded "
        "words %: their occurrences over all words"
    )
    st.dataframe(shredded_svc.summary_frame(result), width="stretch", hide_index=True)


def _language(result) -> str | None:
    languages = list(dict.fromkeys(r.language for r in result.rankings))
    if languages == [None]:
        return None
    return st.radio("Language", languages, horizontal=True, key=LANGUAGE)


def _ranking(result, language: str | None) -> None:
    st.subheader("The shredded words, most frequent first")
    frame = shredded_svc.ranking_frame(result)
    if language is not None:
        frame = frame[frame.language == language]
    if frame.empty:
        st.success("No word is split into that many pieces.")
        return
    st.caption("Click a column header to sort; one row per tokenizer and word.")
    st.dataframe(
        frame,
        width="stretch",
        hide_index=True,
        column_config={"token share %": st.column_config.NumberColumn(format="%.3f")},
    )
    downloads.csv_button("Download the ranking (CSV)", frame, "shredded_words.csv")


def _side_by_side(result, language: str | None) -> None:
    frame = shredded_svc.comparison_frame(result, language)
    if len(result.comparisons[0].tokenizers) < 2 or frame.empty:
        return
    st.subheader("Side by side: pieces under each tokenizer")
    st.caption("The words at least one tokenizer shreds; 'kept whole by' names those that keep them in one piece.")
    st.dataframe(frame, width="stretch", hide_index=True)


def _sentences(sel, table, result, language: str | None, dataset_keys: list[str]) -> None:
    """A word picked from the ranking, and links to its sentences in the explorer."""
    words = list(dict.fromkeys(w.word for r in result.rankings if r.language == language for w in r.words))
    if not words:
        return
    st.subheader("Open a word's sentences")
    if st.session_state.get(WORD) not in words:
        st.session_state.pop(WORD, None)
    word = st.selectbox("Word", words, key=WORD)
    hits = shredded_svc.word_sentences(table, word, dataset_keys, limit=LINKED)
    st.caption(f"The first {len(hits)} sentence(s) holding {word!r}, in the explorer:")
    for key, sid in hits:
        st.page_link(
            "views/explorer.py",
            label=f"{key}, sentence {sid}",
            query_params=explorer.link_params(key, sid),
            icon=":material/search:",
        )
