"""Streamed statistics equal the in-memory ones (real CoNLL-2003 and raw text), with several processes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.conftest import corpus_path
from tokstudy.analysis.corpus.streaming import StreamSettings, stream_stats
from tokstudy.analysis.stats import segmentation_summary
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError, TokenizerLoadError
from tokstudy.tokenization.loading import load_tokenizer

FIELDS = ("additional_segmentation", "fertility", "continued", "unknown", "pieces_per_continued")


def assert_same_points(streamed, in_memory):
    for subset in ("ne", "non_ne", "all"):
        a, b = streamed[subset], getattr(in_memory, subset)
        for f in FIELDS:
            x, y = getattr(a, f), getattr(b, f)
            assert x.value == pytest.approx(y.value, rel=1e-12, abs=1e-12) or (
                np.isnan(x.value) and np.isnan(y.value)
            ), (subset, f)
            assert x.n_words == y.n_words
        assert a.n_pieces == b.n_pieces


def test_streamed_equals_in_memory_on_conll(spm_model):
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    ds = load_dataset("conll2003", "test")
    table = segmentation_table([ds], [load_tokenizer(spm_model, name="tiny")], progress=False)
    mem = segmentation_summary(table, "tiny", n_resamples=0)
    settings = StreamSettings(chunk_sentences=700, processes=2, n_resamples=100, seed=4)
    res = stream_stats(ds.sentences, [f"tiny={spm_model}"], settings)
    assert res.n_chunks == 5 and res.tokenizers == ("tiny",)
    s = res.summary("tiny")
    assert_same_points(s, mem)
    e = s["ne"].additional_segmentation
    assert e.low < e.value < e.high
    # the same seed gives the same intervals with one process and another chunk order of completion
    one = stream_stats(
        ds.sentences, [f"tiny={spm_model}"], StreamSettings(chunk_sentences=700, processes=1, n_resamples=100, seed=4)
    )
    assert np.array_equal(one.aggregates["tiny"].boot, res.aggregates["tiny"].boot)
    assert "word-boundary" in res.boundary_policies["tiny"]


def test_streamed_raw_text_equals_in_memory(spm_model):
    from tokstudy.data.rawtext import iter_sentences

    lines = list(itertools.islice(iter_sentences(corpus_path("raw_text") / "de.txt.gz"), 3000))
    res = stream_stats(iter(lines), [str(spm_model)], StreamSettings(chunk_sentences=1000, processes=1, n_resamples=0))
    ds = Dataset(tuple(Sentence(tuple(line.split()), None, sent_id=i) for i, line in enumerate(lines)), name="de")
    table = segmentation_table([ds], [load_tokenizer(spm_model)], progress=False)
    mem = segmentation_summary(table, n_resamples=0)
    s = res.summary()
    for f in FIELDS:
        assert getattr(s["all"], f).value == pytest.approx(getattr(mem.all, f).value, rel=1e-12)
    assert s["ne"].n_pieces == 0 and s["all"].fertility.n_words == len(table)


def test_stream_errors(spm_model, tmp_path):
    with pytest.raises(TokenizerLoadError):
        stream_stats(["a b"], [str(tmp_path / "none.model")], StreamSettings(processes=1))
    with pytest.raises(DataFormatError, match="empty"):
        stream_stats([], [str(spm_model)], StreamSettings(processes=1))
    with pytest.raises(ValueError):
        StreamSettings(processes=0)


def test_streamed_figures_are_the_corpus_statistics_figures(spm_model, tmp_path):
    """One engine: what both report of the same lines (points, counts) is the same number."""
    from tokstudy.analysis.corpus.counts import CorpusStatsSettings
    from tokstudy.analysis.corpus.engines import EngineSettings, corpus_stats
    from tokstudy.data.rawtext import iter_sentences

    lines = list(itertools.islice(iter_sentences(corpus_path("raw_text") / "de.txt.gz"), 2000))
    path = tmp_path / "de.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = corpus_stats(
        path, [f"tiny={spm_model}"], CorpusStatsSettings(n_resamples=0), engine=EngineSettings("local", processes=1)
    )
    want = corpus.figures["tiny"]["de"]
    got = stream_stats(iter(lines), [f"tiny={spm_model}"], StreamSettings(processes=1, n_resamples=0)).summary()["all"]
    for name in ("fertility", "continued", "unknown", "pieces_per_continued"):
        a, b = getattr(got, name), getattr(want, name)
        assert (a.value, a.n_words, a.n_sentences) == (b.value, b.n_words, b.n_sentences), name
    assert got.n_pieces == want.n_pieces
