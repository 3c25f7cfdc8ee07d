"""The one place that caches: Streamlit cache decorators around the plain services.

Loaded tokenizers, datasets, predictions and segmentation tables are shared read-only
objects (``st.cache_resource``: no copy per rerun, which keeps the explorer fast);
statistics are small results (``st.cache_data``). Keys are the hashable source specs
plus the file's modification time, so an overwritten file is reloaded.
"""

from __future__ import annotations

import os

import streamlit as st

from analysis_app.services import analysis, loading
from analysis_app.services.sources import DatasetSource, PredictionSource, TokenizerSource


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


@st.cache_resource(max_entries=32, show_spinner=False)
def _segmenter(path: str, name: str, mtime: float):
    return loading.load_segmenter(path, name=name)


def segmenter(src: TokenizerSource):
    return _segmenter(src.path, src.name, _mtime(src.path))


def segmenters(srcs) -> list:
    return [segmenter(s) for s in srcs]


@st.cache_resource(max_entries=16, show_spinner="Reading the dataset ...")
def _dataset(src: DatasetSource, mtime: float):
    if src.kind == "registry":
        ds = loading.load_named_dataset(src.name, src.split, language=src.language)
    else:
        ds = loading.load_conll(src.path, name=src.name, language=src.language or "und", split=src.split)
    return ds.with_meta(name=src.table_name, split=src.split)


def dataset(src: DatasetSource):
    return _dataset(src, _mtime(src.path) if src.path else 0.0)


@st.cache_resource(max_entries=32, show_spinner=False)
def _predictions(path: str, mtime: float):
    return loading.load_predictions(path)


def predictions(src: PredictionSource):
    return _predictions(src.path, _mtime(src.path))


@st.cache_resource(max_entries=8, show_spinner="Segmenting every word ...")
def table(dataset_srcs: tuple[DatasetSource, ...], tokenizer_srcs: tuple[TokenizerSource, ...], mtimes: tuple = ()):
    """The segmentation table of the datasets under the tokenizers (built once per selection)."""
    return analysis.build_table([dataset(d) for d in dataset_srcs], segmenters(tokenizer_srcs))


def table_for(dataset_srcs, tokenizer_srcs):
    key_mt = tuple(_mtime(t.path) for t in tokenizer_srcs)
    return table(tuple(dataset_srcs), tuple(tokenizer_srcs), key_mt)


@st.cache_data(max_entries=32, show_spinner="Bootstrapping confidence intervals ...")
def table4(dataset_srcs: tuple, tokenizer_srcs: tuple, n_resamples: int, seed: int):
    return analysis.table4(table_for(dataset_srcs, tokenizer_srcs), [t.name for t in tokenizer_srcs], n_resamples=n_resamples, seed=seed)


@st.cache_data(max_entries=32, show_spinner="Bootstrapping confidence intervals ...")
def grouped(dataset_srcs: tuple, tokenizer_srcs: tuple, by: str, subset: str, n_resamples: int, seed: int):
    return analysis.grouped(
        table_for(dataset_srcs, tokenizer_srcs), [t.name for t in tokenizer_srcs], by, subset, n_resamples=n_resamples, seed=seed
    )
