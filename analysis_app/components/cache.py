"""The one place that caches: Streamlit cache decorators around the plain services.

The services (``analysis_app/services/``) never import Streamlit; this module is the layer above them
that the components call, and that the server's preparation (:mod:`analysis_app.services.background`)
is handed to, so it fills the very cache entries a page reads. Owns no session-state key.

Loaded tokenizers, datasets, predictions and segmentation tables are shared read-only
objects (``st.cache_resource``: no copy per rerun, which keeps the explorer fast);
statistics are small results (``st.cache_data``). Keys are the hashable source specs
plus the file's modification time, so an overwritten file is reloaded.
"""

from __future__ import annotations

import dataclasses
import logging
import os

import streamlit as st

from analysis_app.services import languages as languages_svc
from analysis_app.services import loading, mislabels, pairing, sentences, statistics
from analysis_app.services import morph as morph_svc
from analysis_app.services import shredded as shredded_svc
from analysis_app.services.background import THREAD
from analysis_app.services.explorer import is_byte_level
from analysis_app.services.sources import DatasetSource, PredictionSource, TokenizerSource, train_source
from tokstudy.analysis.model_errors import attribution as attribution_api  # module: tests can replace its functions
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.per_language import language_coverage
from tokstudy.errors import TokstudyError
from tokstudy.report.attribution_rows import AttributionRow


class _NotOurThread(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext" warning for the cached calls made by the background
    work's threads (:mod:`analysis_app.services.background`), which run outside any script run on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.threadName.startswith(THREAD)


logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_NotOurThread())


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


def segmenter_at(path: str):
    """The tokenizer at ``path`` under a provisional name (to learn its vocabulary size before naming it)."""
    return _segmenter(path, "", _mtime(path))


@st.cache_resource(max_entries=32, show_spinner=False)
def _byte_level(path: str, name: str, mtime: float) -> bool:
    return is_byte_level(_segmenter(path, name, mtime))


def byte_level(src: TokenizerSource) -> bool:
    """Whether the tokenizer's pieces are byte-level BPE (shown decoded or as hex bytes)."""
    return _byte_level(src.path, src.name, _mtime(src.path))


def segmenters(srcs) -> list:
    return [segmenter(s) for s in srcs]


@st.cache_resource(max_entries=16, show_spinner="Reading the dataset ...")
def _dataset(src: DatasetSource, mtime: float):
    if src.kind == "registry":
        ds = loading.load_named_dataset(src.name, src.split, language=src.language)
    else:
        ds = loading.load_conll(
            src.path, name=src.name, language=src.language or "und", split=src.split, lenient=src.lenient
        )
    return ds.with_meta(name=src.table_name, split=src.split)


def dataset(src: DatasetSource):
    return _dataset(src, _mtime(src.path) if src.path else 0.0)


@st.cache_resource(max_entries=32, show_spinner=False)
def _predictions(path: str, mtime: float):
    return loading.load_predictions(path)


def predictions(src: PredictionSource):
    return _predictions(src.path, _mtime(src.path))


@st.cache_resource(max_entries=32, show_spinner="Aligning the predictions to the dataset ...")
def _sentence_predictions(dataset_src: DatasetSource, ds_mtime: float, path: str, mtime: float):
    return sentences.sentence_predictions(dataset(dataset_src), _predictions(path, mtime))


def sentence_predictions(dataset_src: DatasetSource, pred_src: PredictionSource):
    """A model's predicted tags per sentence after strict alignment (``AlignmentError`` on a mismatch)."""
    return _sentence_predictions(
        dataset_src, _mtime(dataset_src.path) if dataset_src.path else 0.0, pred_src.path, _mtime(pred_src.path)
    )


@st.cache_resource(max_entries=8, show_spinner="Segmenting every word ...")
def table(dataset_srcs: tuple[DatasetSource, ...], tokenizer_srcs: tuple[TokenizerSource, ...], mtimes: tuple = ()):
    """The segmentation table of the datasets under the tokenizers (built once per selection)."""
    return statistics.build_table([dataset(d) for d in dataset_srcs], segmenters(tokenizer_srcs))


def table_for(dataset_srcs, tokenizer_srcs):
    key_mt = tuple(_mtime(t.path) for t in tokenizer_srcs)
    return table(tuple(dataset_srcs), tuple(tokenizer_srcs), key_mt)


@st.cache_data(max_entries=32, show_spinner="Bootstrapping confidence intervals ...")
def table4(dataset_srcs: tuple, tokenizer_srcs: tuple, n_resamples: int, seed: int):
    return statistics.table4(
        table_for(dataset_srcs, tokenizer_srcs), [t.name for t in tokenizer_srcs], n_resamples=n_resamples, seed=seed
    )


@st.cache_data(max_entries=32, show_spinner="Bootstrapping confidence intervals ...")
def grouped(dataset_srcs: tuple, tokenizer_srcs: tuple, by: str, subset: str, n_resamples: int, seed: int):
    return statistics.grouped(
        table_for(dataset_srcs, tokenizer_srcs),
        [t.name for t in tokenizer_srcs],
        by,
        subset,
        n_resamples=n_resamples,
        seed=seed,
    )


@st.cache_data(max_entries=32, show_spinner="Bootstrapping confidence intervals ...")
def summary(dataset_srcs: tuple, tokenizer_srcs: tuple, n_resamples: int, seed: int):
    return statistics.summary(
        table_for(dataset_srcs, tokenizer_srcs), [t.name for t in tokenizer_srcs], n_resamples=n_resamples, seed=seed
    )


@st.cache_resource(max_entries=16, show_spinner="Aligning the predictions to the dataset ...")
def _aligned(dataset_src: DatasetSource, tokenizer_srcs: tuple, pred_src: PredictionSource, mtime: float):
    t = table_for((dataset_src,), tokenizer_srcs)
    return mislabels.align(t, predictions(pred_src), t.datasets[0])


def aligned(dataset_src: DatasetSource, tokenizer_srcs: tuple, pred_src: PredictionSource):
    """The predictions aligned to the selection's table (``AlignmentError`` on any mismatch)."""
    return _aligned(dataset_src, tokenizer_srcs, pred_src, _mtime(pred_src.path))


@st.cache_data(max_entries=32, show_spinner="Correlating segmentation with errors ...")
def correlation(
    dataset_src: DatasetSource, tokenizer_srcs: tuple, pred_src: PredictionSource, n_resamples: int, seed: int
):
    """``correlate_errors`` for each tokenizer (list, tokenizer order)."""
    t = table_for((dataset_src,), tokenizer_srcs)
    a = aligned(dataset_src, tokenizer_srcs, pred_src)
    return mislabels.correlate(
        t, a, [s.name for s in tokenizer_srcs], bootstrap=BootstrapSettings(n_resamples, seed=seed)
    )


@st.cache_data(max_entries=8, show_spinner=False)
def _pairings(pred_srcs: tuple, tokenizer_srcs: tuple, mtimes: tuple) -> dict:
    out = {}
    for p in pred_srcs:
        try:
            metadata = predictions(p).metadata
        except loading.InputError as exc:  # the page reports the file itself where it reads it
            out[p.key] = pairing.Pairing(p.model, None, f"its predictions file cannot be read ({exc})")
            continue
        out[p.key] = pairing.pair(p, metadata, tokenizer_srcs)
    return out


def pairings(pred_srcs: tuple, tokenizer_srcs: tuple) -> dict:
    """Each predictions file's :class:`~analysis_app.services.pairing.Pairing` (by key) among the loaded
    ``tokenizer_srcs``: the tokenizer its model was trained with, or why that is unknown."""
    mtimes = tuple(_mtime(p.path) for p in pred_srcs) + tuple(_mtime(t.path) for t in tokenizer_srcs)
    return _pairings(tuple(pred_srcs), tuple(tokenizer_srcs), mtimes)


@st.cache_data(max_entries=32, show_spinner="Correlating each model's errors with its own tokenizer ...")
def paired_correlation(
    dataset_src: DatasetSource,
    tokenizer_srcs: tuple,
    pred_src: PredictionSource,
    own: TokenizerSource,
    n_resamples: int,
    seed: int,
):
    """``correlate_errors`` of one model under ``own``, the tokenizer it was trained with: on the selection's
    table when ``own`` is selected (no second segmentation), else on a table of ``own`` alone."""
    toks = tokenizer_srcs if own in tokenizer_srcs else (own,)
    t = table_for((dataset_src,), toks)
    a = aligned(dataset_src, toks, pred_src)
    return mislabels.correlate(t, a, [own.name], bootstrap=BootstrapSettings(n_resamples, seed=seed))[0]


def paired(dataset_src: DatasetSource, tokenizer_srcs: tuple, pred_srcs: tuple, loaded: tuple, n_resamples, seed):
    """Every model of ``pred_srcs`` with its pairing among the ``loaded`` tokenizers and, where that is known,
    its :func:`paired_correlation`, or the ``InputError`` / ``TokstudyError`` that stopped it (else ``None``)."""
    by_name = {t.name: t for t in loaded}
    found = pairings(pred_srcs, loaded)
    out = []
    for p in pred_srcs:
        pair_, result = found[p.key], None
        if pair_.known:
            try:
                result = paired_correlation(dataset_src, tokenizer_srcs, p, by_name[pair_.tokenizer], n_resamples, seed)
            except (loading.InputError, TokstudyError) as exc:
                result = exc
        out.append((p, pair_, result))
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def mislabelled(
    dataset_src: DatasetSource, tokenizer_srcs: tuple, pred_src: PredictionSource, tokenizer: str, limit: int | None
):
    t = table_for((dataset_src,), tokenizer_srcs)
    return mislabels.mislabelled_words(t, aligned(dataset_src, tokenizer_srcs, pred_src), tokenizer, limit=limit)


@st.cache_data(max_entries=16, show_spinner="Fitting the logistic regressions ...")
def attribution(
    dataset_src: DatasetSource, tokenizer_srcs: tuple, pred_srcs: tuple
) -> tuple[tuple[AttributionRow, ...], str | None]:
    """Attribution rows (:class:`~tokstudy.report.attribution_rows.AttributionRow`) for every (model, tokenizer) and
    the training split whose word frequencies they control for (``None``: frequency not controlled)."""
    t = table_for((dataset_src,), tokenizer_srcs)
    train, label, counts = train_source(dataset_src), None, None
    if train is not None:
        try:
            counts, label = attribution_api.word_counts(dataset(train)), train.key
        except (TokstudyError, OSError):  # no training split at the data location: frequency is not controlled
            counts = None
    res = []
    attribute_errors = attribution_api.attribute_errors
    for p in pred_srcs:
        aligned_p = dataclasses.replace(align_predictions(t, predictions(p), dataset=t.datasets[0]), model=p.key)
        res += [attribute_errors(t, aligned_p, s.name, train=counts, train_label=label) for s in tokenizer_srcs]
    return tuple(AttributionRow.of(r) for r in res), label


@st.cache_data(max_entries=16, show_spinner="Table 4 per language: bootstrapping ...")
def language_table(dataset_srcs: tuple, tokenizer_srcs: tuple, n_resamples: int, seed: int):
    """Table 4 per (dataset, language) and tokenizer (``languages.language_frame``), and the message of every
    tokenizer's unknown-piece warning, naming its languages (``tokstudy.analysis.stats.per_language``)."""
    t = table_for(dataset_srcs, tokenizer_srcs)
    frame = languages_svc.language_frame(t, [s.name for s in tokenizer_srcs], n_resamples=n_resamples, seed=seed)
    return frame, [c.message() for c in language_coverage(t)]


@st.cache_data(max_entries=4, show_spinner=False)
def _study_f1(results: str | None, mtime: float):
    return languages_svc.study_f1(results)


def study_f1(results) -> dict:
    """F1 per (registry dataset, language, tokenizer) of the study in ``results`` (``languages.study_f1``)."""
    path = str(results) if results else None
    return _study_f1(path, _mtime(os.path.join(path, "tables", "scores.json")) if path else 0.0)


@st.cache_resource(max_entries=4, show_spinner="Reading the parallel text ...")
def parallel(directory: str, languages: tuple | None = None):
    return languages_svc.read_parallel(directory, list(languages) if languages else None)


@st.cache_resource(max_entries=4, show_spinner=False)
def parallel_words(directory: str, languages: tuple):
    """The selected languages' distinct words and word -> position (``languages.distinct_words``),
    found once for every tokenizer."""
    return languages_svc.distinct_words({k: v for k, v in parallel(directory).items() if k in languages})


@st.cache_resource(max_entries=12, show_spinner="Segmenting the parallel text ...")
def parallel_segmented_by(directory: str, languages: tuple, tokenizer_src: TokenizerSource):
    """The selected languages' words segmented once by one tokenizer (``languages.Presegmented``)."""
    paras = {k: v for k, v in parallel(directory).items() if k in languages}
    words = parallel_words(directory, languages)
    return languages_svc.presegment(paras, [segmenter(tokenizer_src)], words=words)[0]


def parallel_segmented(directory: str, languages: tuple, tokenizer_srcs: tuple) -> list:
    """What both :func:`parity` and :func:`continued` count: the parallel text segmented once per
    tokenizer and selection (one cache entry per tokenizer, so the server's preparation can do one at a time)."""
    return [parallel_segmented_by(directory, languages, t) for t in tokenizer_srcs]


@st.cache_data(max_entries=16, show_spinner="Bootstrapping parity ...")
def parity(directory: str, languages: tuple, tokenizer_srcs: tuple, reference: str, n_resamples: int, seed: int):
    paras = {k: v for k, v in parallel(directory).items() if k in languages}
    segs = parallel_segmented(directory, languages, tokenizer_srcs)
    return languages_svc.parity_frame(paras, segs, reference=reference, n_resamples=n_resamples, seed=seed)


@st.cache_data(max_entries=16, show_spinner="Counting continued words ...")
def continued(directory: str, languages: tuple, tokenizer_srcs: tuple, n_resamples: int, seed: int):
    paras = {k: v for k, v in parallel(directory).items() if k in languages}
    segs = parallel_segmented(directory, languages, tokenizer_srcs)
    return languages_svc.continued_frame(paras, segs, n_resamples=n_resamples, seed=seed)


@st.cache_data(max_entries=16, show_spinner="Ranking the shredded words ...")
def shredded(dataset_srcs: tuple, tokenizer_srcs: tuple, min_pieces: int):
    """Every tokenizer's shredded words, per language (``shredded.shredded``: the library's ranking)."""
    t = table_for(dataset_srcs, tokenizer_srcs)
    return shredded_svc.shredded(t, [s.name for s in tokenizer_srcs], min_pieces)


@st.cache_data(max_entries=16, show_spinner="Scoring the morpheme boundaries ...")
def _morph(gold_path: str, mtime: float, shown_as: str, language, skip_unspelled: bool, tokenizer_srcs: tuple, corpus):
    gold = morph_svc.read_gold(gold_path, shown_as=shown_as, language=language, skip_unspelled=skip_unspelled)
    counts = morph_svc.word_counts([dataset(corpus)]) if corpus is not None else None
    return morph_svc.morph_frame(gold, segmenters(tokenizer_srcs), counts), gold


def morph(gold_path: str, shown_as: str, language, skip_unspelled: bool, tokenizer_srcs: tuple, corpus=None):
    """(figures frame, the gold file read) of the tokenizers on a gold file (``morph.morph_frame``), with
    frequency bands in the dataset ``corpus`` when one is given; ``DataFormatError`` for a bad file."""
    return _morph(gold_path, _mtime(gold_path), shown_as, language, skip_unspelled, tokenizer_srcs, corpus)
