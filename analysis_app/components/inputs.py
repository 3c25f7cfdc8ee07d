"""Sidebar forms that add tokenizers, CoNLL datasets and predictions, by path or upload.

Owns the keys in :data:`KEYS`. Every failure becomes an ``st.error`` with the loader's
message; paths are confined to the directories the app was started with.
"""

from __future__ import annotations

import streamlit as st

from analysis_app.components import workspace
from analysis_app.services import cache
from analysis_app.services.loading import InputError
from analysis_app.services.paths import PathNotAllowedError, confine_path
from analysis_app.services.sources import DatasetSource, PredictionSource
from analysis_app.services.uploads import accept_text_upload, accept_tokenizer_upload

TOK_PATH, TOK_UP, DS_PATH, DS_UP, DS_LANG, PRED_PATH, PRED_UP = (
    "ts_in_tok_path", "ts_in_tok_upload", "ts_in_ds_path", "ts_in_ds_upload", "ts_in_ds_lang",
    "ts_in_pred_path", "ts_in_pred_upload",
)
DONE = "ts_in_done"  # file_id -> (ok, message): each upload is validated once
KEYS = (TOK_PATH, TOK_UP, DS_PATH, DS_UP, DS_LANG, PRED_PATH, PRED_UP, DONE)


def render(where) -> None:
    with where.expander("Add inputs (paths or uploads)", expanded=not workspace.sources().tokenizers):
        _tokenizer_inputs()
        _dataset_inputs()
        _prediction_inputs()


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
    path = st.text_input("Tokenizer path", key=TOK_PATH, placeholder="results/demo/tokenizers/spm-8k")
    if path and st.button("Add tokenizer", key=TOK_PATH + "_btn"):
        p = _confined(path)
        if p:
            _add_tokenizer(p, None, "path")
    up = st.file_uploader("or upload a tokenizer", type=["model", "json"], key=TOK_UP)
    if up is not None:
        done = st.session_state.setdefault(DONE, {})
        if up.file_id not in done:
            try:
                stored, name = accept_tokenizer_upload(up.name, up.getvalue(), max_bytes=workspace.settings().max_upload_bytes)
                done[up.file_id] = _add_tokenizer(str(stored), name, "upload")
            except InputError as exc:
                done[up.file_id] = (False, str(exc))
        _report(*done[up.file_id])


def _add_tokenizer(path: str, name: str | None, origin: str) -> tuple[bool, str]:
    from pathlib import Path

    from tokstudy.tokenization.sentencepiece_ import default_name

    srcs, src = workspace.sources().add_tokenizer(path, name or default_name(Path(path)), origin)
    try:
        seg = cache.segmenter(src)
    except InputError as exc:
        result = (False, str(exc))
        if origin != "upload":
            st.error(result[1])
        return result
    workspace.set_sources(srcs)
    workspace.select_tokenizer(src.name)
    result = (True, f"tokenizer {src.name!r} loaded ({seg.kind}, {seg.vocab_size} pieces)")
    if origin != "upload":
        st.success(result[1])
    return result


def _dataset_inputs() -> None:
    st.markdown("**Dataset** (a CoNLL column file, plain or .gz)")
    lang = st.text_input("Language of the file (ISO code)", value="en", key=DS_LANG, max_chars=8)
    path = st.text_input("CoNLL file path", key=DS_PATH)
    if path and st.button("Add dataset", key=DS_PATH + "_btn"):
        p = _confined(path)
        if p:
            _report(*_add_dataset(p, _stem(p), lang))
    up = st.file_uploader("or upload a CoNLL file", type=["conll", "txt", "gz", "iob", "bio", "tsv"], key=DS_UP)
    if up is not None:
        done = st.session_state.setdefault(DONE, {})
        if up.file_id not in done:
            try:
                stored, name = accept_text_upload(up.name, up.getvalue(), kind="conll", max_bytes=workspace.settings().max_upload_bytes)
                done[up.file_id] = _add_dataset(str(stored), name, lang)
            except InputError as exc:
                done[up.file_id] = (False, str(exc))
        _report(*done[up.file_id])


def _add_dataset(path: str, name: str, lang: str) -> tuple[bool, str]:
    src = DatasetSource.conll(path, name, "all", (lang or "und").strip() or "und")
    srcs, src = workspace.sources().add_dataset(src)
    try:
        ds = cache.dataset(src)
    except InputError as exc:
        return False, str(exc)
    workspace.set_sources(srcs)
    workspace.select_dataset(src.key)
    return True, f"dataset {src.key!r} loaded: {len(ds)} sentences, {ds.n_words} words, {ds.n_entities} entities"


def _prediction_inputs() -> None:
    st.markdown("**Predictions** for the selected dataset (tokstudy `.tsv` or conlleval format)")
    path = st.text_input("Predictions file path", key=PRED_PATH)
    if path and st.button("Add predictions", key=PRED_PATH + "_btn"):
        p = _confined(path)
        if p:
            _report(*_add_predictions(p, _stem(p)))
    up = st.file_uploader("or upload predictions", type=["tsv", "txt", "conll"], key=PRED_UP)
    if up is not None:
        done = st.session_state.setdefault(DONE, {})
        if up.file_id not in done:
            try:
                stored, name = accept_text_upload(up.name, up.getvalue(), kind="predictions", max_bytes=workspace.settings().max_upload_bytes)
                done[up.file_id] = _add_predictions(str(stored), name)
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


def _stem(path: str) -> str:
    from pathlib import Path

    name = Path(path).name
    for suffix in (".gz", ".txt", ".tsv", ".conll", ".iob", ".bio"):
        name = name.removesuffix(suffix)
    return name or "data"
