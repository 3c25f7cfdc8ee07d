"""Morpheme boundaries page widgets: a gold segmentation file in (a path in an allowed folder, or an upload),
MorphScore and boundary precision / recall / F1 of the selected tokenizers out. Owns the keys in :data:`KEYS`.

The figures are the library's (:mod:`tokstudy.analysis.morph`); a bad file is the library's one line naming
the file and line, shown as an error on the page.
"""

from __future__ import annotations

import streamlit as st

from analysis_app.components import cache, downloads, workspace
from analysis_app.services import morph as morph_svc
from analysis_app.services.loading import InputError
from analysis_app.services.paths import PathNotAllowedError, confine_path
from tokstudy.analysis.morph.scores import ENCODING_NOTE
from tokstudy.errors import TokstudyError

PATH, UPLOAD, LANGUAGE, SKIP, BANDS = "ts_mo_path", "ts_mo_upload", "ts_mo_language", "ts_mo_skip", "ts_mo_bands"
KEYS = (PATH, UPLOAD, LANGUAGE, SKIP, BANDS)


def render(sel) -> None:
    st.caption(
        "Gold segmentations: SIGMORPHON 2022 word-level files (word<TAB>morph @@morph ...<TAB>category) or "
        "MorphScore CSVs (full_word,pt1,rest). " + ENCODING_NOTE[0].upper() + ENCODING_NOTE[1:] + "."
    )
    gold = _gold_file()
    c1, c2, c3 = st.columns(3)
    language = c1.text_input("Language (default: from the file name)", key=LANGUAGE, max_chars=16)
    skip = c2.checkbox("Skip lines that cannot be read as a segmentation of their word", key=SKIP)
    bands = c3.checkbox(
        "Frequency bands in the sidebar's dataset", key=BANDS, disabled=sel.dataset is None, value=False
    )
    if gold is None:
        st.info("Give a gold segmentation file: a path in an allowed folder, or an upload.")
        return
    if not sel.tokenizers:
        st.info("Select one or more tokenizers in the sidebar.")
        return
    path, shown_as = gold
    corpus = sel.dataset if bands else None
    try:
        frame, read = cache.morph(path, shown_as, language.strip() or None, skip, tuple(sel.tokenizers), corpus)
    except (InputError, OSError, TokstudyError) as exc:
        st.error(str(exc).replace(path, shown_as))
        return
    _results(frame, read, shown_as)


def _gold_file() -> tuple[str, str] | None:
    """(path to read, name to show) of the gold file given, or ``None``."""
    c1, c2 = st.columns(2)
    text = c1.text_input("Gold file path", key=PATH, placeholder="e.g. morph/english_morph_data.csv")
    up = c2.file_uploader("or upload one", type=["tsv", "csv", "txt", "gz"], key=UPLOAD)
    if up is not None:
        try:
            stored = morph_svc.accept_gold_upload(
                up.name, up.getvalue(), max_bytes=workspace.settings().max_upload_bytes
            )
        except InputError as exc:
            st.error(str(exc))
            return None
        return str(stored), up.name
    if text.strip():
        try:
            return str(confine_path(text.strip(), workspace.settings().allow_dirs)), text.strip()
        except PathNotAllowedError as exc:
            st.error(str(exc))
    return None


def _results(frame, read, shown_as: str) -> None:
    st.subheader("MorphScore and boundary precision / recall / F1")
    skipped = f"; {read.skipped_note()}" if read.skipped else ""
    st.caption(
        f"{shown_as}: {len(read)} words ({read.format}, language {read.language}){skipped}. MorphScore: the share "
        "of words whose boundary of interest is a piece boundary, words left whole excluded (counted); – for "
        "SIGMORPHON files, which name no boundary of interest."
    )
    whole = frame[frame.band == "all"].drop(columns="band")
    st.dataframe(whole, width="stretch", hide_index=True)
    banded = frame[frame.band != "all"]
    if not banded.empty:
        st.subheader("By frequency band in the dataset")
        st.dataframe(banded, width="stretch", hide_index=True)
    downloads.csv_button("Download the figures (CSV)", frame, "morph.csv")
