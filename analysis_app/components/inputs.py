"""Sidebar forms that add tokenizers, CoNLL datasets and predictions, by path or upload.

Owns the keys in :data:`KEYS`. Every failure becomes an ``st.error`` with the loader's
message; paths are confined to the directories the app was started with.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from analysis_app.components import cache, workspace
from analysis_app.services.loading import InputError
from analysis_app.services.paths import PathNotAllowedError, confine_path
from analysis_app.services.sources import DatasetSource, PredictionSource
from analysis_app.services.uploads import accept_text_upload, accept_tokenizer_upload
from tokstudy.inputs import dataset_file_key
from tokstudy.tokenization.sentencepiece_ import default_name

TOK_PATH, TOK_UP, DS_PATH, DS_UP, DS_LANG, PRED_PATH, PRED_UP = (
    "ts_in_tok_path",
    "ts_in_tok_upload",
    "ts_in_ds_path",
    "ts_in_ds_upload",
    "ts_in_ds_lang",
    "ts_in_pred_path",
    "ts_in_pred_upload",
)
DS_LENIENT, REN_OLD, REN_NEW = "ts_in_ds_lenient", "ts_in_rename_old", "ts_in_rename_new"
DONE = "ts_in_done"  # file_id -> (ok, message): each upload is validated once
OPEN = "ts_in_open"  # whether the expander starts open: decided once, so an add never collapses it
KEYS = (TOK_PATH, TOK_UP, DS_PATH, DS_UP, DS_LANG, DS_LENIENT, PRED_PATH, PRED_UP, REN_OLD, REN_NEW, DONE, OPEN)


def render(where) -> None:
    if OPEN not in st.session_state:
        st.session_state[OPEN] = not workspace.sources().tokenizers
    with where.expander("Add inputs (paths or uploads)", expanded=st.session_state[OPEN]):
        _tokenizer_inputs()
        _rename_inputs()
        _dataset_inputs()
        _prediction_inputs()


def _as_users_file(message: str, stored, filename: str) -> str:
    """An upload's error names the user's file, not the app's stored copy of it."""
    for form in {str(stored), str(Path(stored).resolve())}:
        message = message.replace(form, filename)
    return message


def _report(ok: bool, message: str) -> None:
    (st.success if ok else st.error)(message)


def _confined(text: str) -> str | None:
    try:
        return str(confine_path(text, workspace.settings().allow_dirs))
    except PathNotAllowedError as exc:
        st.error(str(exc))
        return None


def _tokenizer_inputs() -> None:
    st.markdown("**Tokenizer** (SentencePiece `.model`, `tokenizer.json`, or a Hugging Face tokenizer directory)")
    path = st.text_input("Tokenizer path", key=TOK_PATH, placeholder=_tokenizer_placeholder())
    if path and st.button("Add tokenizer", key=TOK_PATH + "_btn"):
        p = _confined(path)
        if p:
            _add_tokenizer(p, None, "path")
    up = st.file_uploader("or upload a tokenizer", type=["model", "json"], key=TOK_UP)
    if up is not None:
        done = st.session_state.setdefault(DONE, {})
        if up.file_id not in done:
            try:
                stored, name = accept_tokenizer_upload(
                    up.name, up.getvalue(), max_bytes=workspace.settings().max_upload_bytes
                )
                ok, msg = _add_tokenizer(str(stored), name, "upload")
                done[up.file_id] = (ok, _as_users_file(msg, stored, up.name))
            except InputError as exc:
                done[up.file_id] = (False, str(exc))
        _report(*done[up.file_id])


def _add_tokenizer(path: str, name: str | None, origin: str) -> tuple[bool, str]:
    srcs = workspace.sources()
    try:
        seg = cache.segmenter_at(path)
    except InputError as exc:
        result = (False, str(exc))
        if origin != "upload":
            st.error(result[1])
        return result
    base = name or default_name(Path(path))
    srcs, src = srcs.add_tokenizer(path, sized_name(base, seg.vocab_size), origin)
    workspace.set_sources(srcs)
    workspace.select_tokenizer(src.name)
    result = (True, f"tokenizer {src.name!r} loaded ({seg.kind}, {seg.vocab_size} pieces); rename it below")
    if origin != "upload":
        st.success(result[1])
    return result


def _rename_inputs() -> None:
    names = [t.name for t in workspace.sources().tokenizers]
    if not names:
        return
    st.markdown("**Rename a tokenizer**")
    c1, c2 = st.columns(2)
    old = c1.selectbox("Tokenizer", names, key=REN_OLD, label_visibility="collapsed")
    new = c2.text_input("New name", key=REN_NEW, placeholder="new name", label_visibility="collapsed")
    if new and st.button("Rename", key=REN_NEW + "_btn"):
        try:
            workspace.rename_tokenizer(old, new)
            st.success(f"tokenizer {old!r} is now {new.strip()!r}")
        except ValueError as exc:
            st.error(str(exc))


def _dataset_inputs() -> None:
    st.markdown("**Dataset** (a CoNLL column file, plain or .gz)")
    lang = st.text_input("Language of the file (ISO code)", value="en", key=DS_LANG, max_chars=8)
    lenient = st.checkbox(
        "Repair invalid tag sequences (lenient)",
        key=DS_LENIENT,
        help="An I-X that cannot continue an entity starts one (as the registry reads CoNLL-2002); "
        "and a line whose field count differs from the file's is skipped; both are counted. "
        "Off: such a file is refused at the line.",
    )
    path = st.text_input("CoNLL file path", key=DS_PATH, placeholder="e.g. conll2002_es/esp.testb.gz")
    if path and st.button("Add dataset", key=DS_PATH + "_btn"):
        p = _confined(path)
        if p:
            _report(*_add_dataset(p, dataset_file_key(p)[0], lang, lenient))
    up = st.file_uploader("or upload a CoNLL file", type=["conll", "txt", "gz", "iob", "bio", "tsv"], key=DS_UP)
    if up is not None:
        done = st.session_state.setdefault(DONE, {})
        key = (up.file_id, lenient)
        if key not in done:
            try:
                stored, name = accept_text_upload(
                    up.name, up.getvalue(), kind="conll", max_bytes=workspace.settings().max_upload_bytes
                )
                ok, msg = _add_dataset(str(stored), name, lang, lenient)
                done[key] = (ok, _as_users_file(msg, stored, up.name))
            except InputError as exc:
                done[key] = (False, str(exc))
        _report(*done[key])


def _add_dataset(path: str, name: str, lang: str, lenient: bool = False) -> tuple[bool, str]:
    src = DatasetSource.conll(path, name, "all", (lang or "und").strip() or "und", lenient=lenient)
    srcs, src = workspace.sources().add_dataset(src)
    try:
        ds = cache.dataset(src)
    except InputError as exc:
        hint = (
            ""
            if lenient or "lenient" not in str(exc)
            else " (tick 'Repair invalid tag sequences' to read it leniently)"
        )
        return False, str(exc) + hint
    workspace.set_sources(srcs)
    workspace.select_dataset(src.key)
    repaired = f"; {ds.repaired} invalid tag(s) repaired" if ds.repaired else ""
    skipped = ds.repair_log.skipped
    skipped = f"; {skipped} line(s) with another field count skipped" if skipped else ""
    return (
        True,
        f"dataset {src.key!r} loaded: {len(ds)} sentences, {ds.n_words} words, {ds.n_entities} entities"
        f"{repaired}{skipped}",
    )


def _prediction_inputs() -> None:
    st.markdown("**Predictions** for the selected dataset (tokstudy `.tsv` or conlleval format)")
    path = st.text_input("Predictions file path", key=PRED_PATH)
    if path and st.button("Add predictions", key=PRED_PATH + "_btn"):
        p = _confined(path)
        if p:
            _report(*_add_predictions(p, dataset_file_key(p)[0]))
    up = st.file_uploader("or upload predictions", type=["tsv", "txt", "conll"], key=PRED_UP)
    if up is not None:
        done = st.session_state.setdefault(DONE, {})
        if up.file_id not in done:
            try:
                stored, name = accept_text_upload(
                    up.name, up.getvalue(), kind="predictions", max_bytes=workspace.settings().max_upload_bytes
                )
                ok, msg = _add_predictions(str(stored), name)
                done[up.file_id] = (ok, _as_users_file(msg, stored, up.name))
            except InputError as exc:
                done[up.file_id] = (False, str(exc))
        _report(*done[up.file_id])


def _add_predictions(path: str, model: str) -> tuple[bool, str]:
    ds_key = st.session_state.get(workspace.SEL_DS)
    srcs = workspace.sources()
    if ds_key is None:
        return False, "select or add a dataset first: predictions belong to a dataset"
    ds_src = srcs.dataset(ds_key)
    src = PredictionSource(model, path, ds_src.key.replace(":", "_"))
    try:
        preds = cache.predictions(src)
    except InputError as exc:
        return False, str(exc)
    workspace.set_sources(srcs.add_predictions(src))
    return True, f"predictions {model!r} loaded for {ds_key}: {len(preds.sentences)} sentences"


def sized_name(base: str, vocab_size: int) -> str:
    """A tokenizer's name: its folder or file name, with the vocabulary size added unless the name has it.

    >>> sized_name("spiece", 8000), sized_name("unigram-8k", 8000), sized_name("spm-600", 600)
    ('spiece-8k', 'unigram-8k', 'spm-600')
    """
    size = f"{vocab_size // 1000}k" if vocab_size % 1000 == 0 else str(vocab_size)  # the study's spelling
    if re.search(rf"(?<![0-9]){re.escape(size)}(?![0-9])", base) or re.search(
        rf"(?<![0-9]){vocab_size}(?![0-9])", base
    ):
        return base
    return f"{base}-{size}"


def _tokenizer_placeholder() -> str:
    """An example path in the study's own layout (``<results>/tokenizers/sp-unigram-8k``)."""
    res = workspace.settings().results
    return f"{res}/tokenizers/sp-unigram-8k" if res else "results/demo/tokenizers/sp-unigram-8k"
