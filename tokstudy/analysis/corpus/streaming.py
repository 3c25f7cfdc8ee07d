"""Segmentation statistics of a stream of sentences bigger than memory, counted by the corpus-statistics engine.

The stream (raw text lines, split on whitespace, or labelled :class:`~tokstudy.data.types.Sentence`
objects) is cut into chunks of ``chunk_sentences``; each chunk is counted by
:func:`~tokstudy.analysis.corpus.counts.aggregate_words`, the counting of ``tokstudy corpus-stats``,
in this process or in a worker process that loaded the tokenizers once, at most ``2 × processes``
chunks in flight. The sums of each subset of words (NE, non-NE, all; only "all" for unlabelled
text) are kept where corpus statistics keep a language's, and merge by addition.

Intervals are the corpus statistics' bucket bootstrap (see :mod:`tokstudy.analysis.corpus.counts`):
a sentence's bucket is a function of the seed and of its position in the stream, so the sums, and
the intervals, are the same for any chunk size and number of processes. Point estimates are exact
and equal the in-memory ones; fertility, continued words, unknown pieces and pieces per continued
word are the figures :func:`~tokstudy.analysis.corpus.engines.corpus_stats` gives for the same lines.

>>> # from tokstudy.data.rawtext import iter_sentences
>>> # res = stream_stats(iter_sentences("big/en.txt.gz"), ["runs/tok/sp-32000"], StreamSettings(processes=2))
>>> # res.summary("sp-32000")["all"].fertility
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from tokstudy.analysis.corpus.counts import (
    CorpusAggregate,
    CorpusStatsSettings,
    LanguageSums,
    aggregate_words,
    bucket_weights,
    figures_of,
    worker_segmenters,
)
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate, SubsetSummary
from tokstudy.analysis.stats.groupings import SUBSETS
from tokstudy.data.types import Sentence
from tokstudy.errors import DataFormatError

#: the file key of a stream's sentences in the bucket hash (their key is their position in the stream)
STREAM_KEY = "stream"


@dataclass(frozen=True)
class StreamSettings(BootstrapSettings):
    """How a stream is counted.

    ``n_resamples`` (bucket bootstrap resamples, default 200, 0 = no intervals), ``confidence`` and
    ``seed`` are those of :class:`~tokstudy.analysis.stats.estimates.BootstrapSettings`.

    Attributes:
        chunk_sentences: sentences per chunk counted at once (in this process or sent to a worker).
        processes: worker processes (1 = in this process, no pool).
        count_lone_boundary: passed to every tokenizer loaded by path.
        n_buckets: resampling units the sentences are hashed into (see :mod:`tokstudy.analysis.corpus.counts`).
    """

    n_resamples: int = 200
    chunk_sentences: int = 5000
    processes: int = 2
    count_lone_boundary: bool = True
    n_buckets: int = 1000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.chunk_sentences < 1 or self.processes < 1:
            raise ValueError(
                f"chunk_sentences and processes must be >= 1, got {self.chunk_sentences}, {self.processes}"
            )

    def counting(self) -> CorpusStatsSettings:
        """The corpus-statistics settings the chunks are counted with."""
        return CorpusStatsSettings(
            n_resamples=self.n_resamples,
            confidence=self.confidence,
            seed=self.seed,
            n_buckets=self.n_buckets,
            chunk_lines=self.chunk_sentences,
            count_lone_boundary=self.count_lone_boundary,
        )


@dataclass(frozen=True)
class StreamAggregate:
    """The merged sums of one tokenizer.

    Attributes:
        sums: per subset (``"ne"``, ``"non_ne"``, ``"all"``), the bucket sums of the corpus statistics.
        boot: ``boot[resample, subset, quantity]``, the resampled totals (quantities of
            :data:`~tokstudy.analysis.corpus.counts.QUANTITIES`).
    """

    sums: dict[str, LanguageSums]
    boot: np.ndarray


@dataclass(frozen=True)
class StreamedStats:
    """The merged sums of a streamed run, per tokenizer."""

    tokenizers: tuple[str, ...]
    boundary_policies: dict[str, str]
    aggregates: dict[str, StreamAggregate]
    vocab_sizes: dict[str, int]
    settings: StreamSettings
    n_chunks: int

    def summary(self, tokenizer: str | None = None) -> dict[str, SubsetSummary]:
        """``{"ne"|"non_ne"|"all": SubsetSummary}`` from the sums (bucket-bootstrap intervals)."""
        name = tokenizer or self.tokenizers[0]
        counting = self.settings.counting()
        weights = bucket_weights(counting) if counting.n_resamples else None
        out = {}
        for subset in SUBSETS:
            f = figures_of(self.aggregates[name].sums[subset], self.vocab_sizes[name], weights, counting)
            fert = f.fertility
            out[subset] = SubsetSummary(
                additional_segmentation=Estimate(
                    *(100 * (x - 1) for x in (fert.value, fert.low, fert.high)), fert.n_words, fert.n_sentences
                ),
                fertility=fert,
                continued=f.continued,
                unknown=f.unknown,
                pieces_per_continued=f.pieces_per_continued,
                n_pieces=f.n_pieces,
            )
        return out

    @property
    def bootstrap(self) -> BootstrapSettings:
        return BootstrapSettings(self.settings.n_resamples, self.settings.confidence, self.settings.seed)


def chunk_sums(segmenters, sentences: Sequence, start: int, settings: StreamSettings) -> CorpusAggregate:
    """The sums of one chunk whose first sentence is number ``start`` of the stream (pure)."""
    lines: dict[str, list[tuple[int, Sequence[str]]]] = {s: [] for s in SUBSETS}
    for key, s in enumerate(sentences, start):
        words, tags = (s.split(), None) if isinstance(s, str) else (s.words, s.tags)
        lines["all"].append((key, words))
        if tags is not None:
            lines["ne"].append((key, [w for w, t in zip(words, tags) if t != "O"]))
            lines["non_ne"].append((key, [w for w, t in zip(words, tags) if t == "O"]))
    total = CorpusAggregate.empty()
    for subset, items in lines.items():
        total.merge(
            aggregate_words(items, segmenters, file_key=STREAM_KEY, language=subset, settings=settings.counting())
        )
    return total


def _work(task) -> CorpusAggregate:
    start, sentences, tokenizers, settings = task
    segmenters = worker_segmenters(tuple(tokenizers), settings.count_lone_boundary)
    return chunk_sums(segmenters, sentences, start, settings)


def _chunks(sentences: Iterable, size: int) -> Iterator[tuple[int, list]]:
    """``(position of the first sentence, sentences)`` of each chunk."""
    it = iter(sentences)
    start = 0
    while chunk := list(itertools.islice(it, size)):
        yield start, chunk
        start += len(chunk)


def stream_stats(
    sentences: Iterable[str | Sentence],
    tokenizers: Sequence[str],
    settings: StreamSettings | None = None,
    *,
    progress: bool = False,
) -> StreamedStats:
    """Count ``sentences`` under the tokenizers at paths/specs ``tokenizers`` (``[NAME=]PATH``).

    Tokenizers are given by path, not as objects, because each worker process loads
    its own copy once. Raises what the tokenizer loader raises (e.g.
    :class:`~tokstudy.errors.TokenizerLoadError`) before any text is read.
    """
    settings = settings or StreamSettings()
    local = worker_segmenters(tuple(tokenizers), settings.count_lone_boundary)  # fail early, learn names
    total = CorpusAggregate.empty()
    n_chunks = n_sentences = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="streaming", unit="sentence")

    def add(part: CorpusAggregate, n: int) -> None:
        nonlocal n_sentences
        total.merge(part)
        n_sentences += n
        if bar is not None:
            bar.update(n)

    if settings.processes == 1:
        for start, chunk in _chunks(sentences, settings.chunk_sentences):
            add(chunk_sums(local, chunk, start, settings), len(chunk))
            n_chunks += 1
    else:
        ctx = mp.get_context("spawn")  # no fork of a process holding tokenizer threads
        window = 2 * settings.processes
        with ctx.Pool(settings.processes) as pool:
            pending = []
            for start, chunk in _chunks(sentences, settings.chunk_sentences):
                pending.append((pool.apply_async(_work, ((start, chunk, list(tokenizers), settings),)), len(chunk)))
                n_chunks += 1
                while len(pending) >= window:
                    res, n = pending.pop(0)
                    add(res.get(), n)
            for res, n in pending:
                add(res.get(), n)
    if bar is not None:
        bar.close()
    if not n_sentences:
        raise DataFormatError("no sentences to stream; the corpus is empty")
    return _streamed(total, local, settings, n_chunks)


def _streamed(total: CorpusAggregate, segmenters, settings: StreamSettings, n_chunks: int) -> StreamedStats:
    counting = settings.counting()
    weights = bucket_weights(counting) if counting.n_resamples else np.zeros((0, counting.n_buckets), np.int64)
    aggregates = {}
    for seg in segmenters:
        sums = total.sums[seg.name]
        boot = np.stack([weights @ sums[s].buckets for s in SUBSETS], axis=1)
        aggregates[seg.name] = StreamAggregate(sums, boot)
    return StreamedStats(
        tokenizers=tuple(seg.name for seg in segmenters),
        boundary_policies={seg.name: seg.describe_boundary_policy() for seg in segmenters},
        aggregates=aggregates,
        vocab_sizes=dict(total.vocab_sizes),
        settings=settings,
        n_chunks=n_chunks,
    )
