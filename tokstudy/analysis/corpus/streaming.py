"""Segmentation statistics over corpora bigger than memory: chunks, mergeable sums, several cores.

The corpus is read as a stream of sentences (raw text lines, split on whitespace,
or labelled :class:`~tokstudy.data.types.Sentence` objects) and cut into chunks. Each
chunk goes to a worker process that loaded the tokenizers ONCE (pool initializer)
and returns only sums: for each tokenizer, subset (NE, non-NE, all) and quantity
(words, pieces, continued words, unknown pieces, pieces of continued words), the
total and its value under each bootstrap resample. Sums merge by addition, so
memory does not grow with the corpus and the result does not depend on the order
in which workers finish. At most ``2 × processes`` chunks are in flight.

Intervals use the **Poisson bootstrap**: each sentence gets an independent
Poisson(1) weight per resample (seeded by ``(seed, chunk index)``, so the result
is reproducible whatever the number of processes). It approximates the
multinomial sentence bootstrap of :mod:`tokstudy.analysis.stats.bootstrap` (the same as
the sample grows) and, unlike it, is mergeable across chunks. Point estimates are
exact and equal the in-memory ones.

For raw text by language, on a process pool or a dask cluster, with intervals that do not depend on
the partitioning either, see :mod:`tokstudy.analysis.corpus.counts` (``tokstudy corpus-stats``),
which shares :func:`type_counts` with this module.

>>> # from tokstudy.data.rawtext import iter_sentences
>>> # res = stream_stats(iter_sentences("big/en.txt.gz"), ["runs/tok/sp-32000"], processes=2)
>>> # res.summary("sp-32000").all.fertility
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from tokstudy.analysis.stats import BootstrapSettings, Estimate, SubsetSummary
from tokstudy.analysis.stats.bootstrap import percentile_interval
from tokstudy.data.types import Sentence

SUBSETS = ("ne", "non_ne", "all")
#: per-subset quantities kept as sums
QUANTITIES = ("words", "pieces", "continued", "unk", "pieces_continued")
_NQ = len(QUANTITIES)

_WORKER_SEGMENTERS: list | None = None


@dataclass(frozen=True)
class StreamSettings(BootstrapSettings):
    """How a corpus is streamed.

    ``n_resamples`` (Poisson bootstrap resamples, default 200, 0 = no intervals), ``confidence`` and
    ``seed`` are those of :class:`~tokstudy.analysis.stats.estimates.BootstrapSettings`.

    Attributes:
        chunk_sentences: sentences per chunk sent to a worker.
        processes: worker processes (1 = in this process, no pool).
        count_lone_boundary: passed to every tokenizer loaded by path.
    """

    n_resamples: int = 200
    chunk_sentences: int = 5000
    processes: int = 2
    count_lone_boundary: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.chunk_sentences < 1 or self.processes < 1:
            raise ValueError(
                f"chunk_sentences and processes must be >= 1, got {self.chunk_sentences}, {self.processes}"
            )


@dataclass
class StreamAggregate:
    """Mergeable sums for one tokenizer: ``totals[subset, quantity]`` and ``boot[resample, subset, quantity]``."""

    totals: np.ndarray
    boot: np.ndarray
    n_sentences: np.ndarray  # per subset

    def merge(self, other: "StreamAggregate") -> "StreamAggregate":
        self.totals += other.totals
        self.boot += other.boot
        self.n_sentences += other.n_sentences
        return self


@dataclass(frozen=True)
class StreamedStats:
    """The merged sums of a streamed run, per tokenizer."""

    tokenizers: tuple[str, ...]
    boundary_policies: dict[str, str]
    aggregates: dict[str, StreamAggregate]
    settings: StreamSettings
    n_chunks: int

    def summary(self, tokenizer: str | None = None) -> dict[str, SubsetSummary]:
        """``{"ne"|"non_ne"|"all": SubsetSummary}`` from the sums (Poisson-bootstrap intervals)."""
        name = tokenizer or self.tokenizers[0]
        agg = self.aggregates[name]
        s = self.settings
        out = {}
        for k, subset in enumerate(SUBSETS):
            t = agg.totals[k]
            b = agg.boot[:, k, :]

            def est(num, den, f):
                with np.errstate(invalid="ignore", divide="ignore"):
                    val = t[num] / t[den] if t[den] else float("nan")
                    if s.n_resamples and t[den]:
                        lo, hi = percentile_interval(b[:, num] / b[:, den], s.confidence)
                    else:
                        lo = hi = float("nan")
                return Estimate(float(f(val)), float(f(lo)), float(f(hi)), int(t[0]), int(agg.n_sentences[k]))

            W, P, C, U, PC = range(_NQ)
            out[subset] = SubsetSummary(
                additional_segmentation=est(P, W, lambda r: 100 * (r - 1)),
                fertility=est(P, W, lambda r: r),
                continued=est(C, W, lambda r: 100 * r),
                unknown=est(U, P, lambda r: 100 * r),
                pieces_per_continued=est(PC, C, lambda r: r),
                n_pieces=int(t[P]),
            )
        return out

    @property
    def bootstrap(self) -> BootstrapSettings:
        return BootstrapSettings(self.settings.n_resamples, self.settings.confidence, self.settings.seed)


# ---- worker side -------------------------------------------------------------------


def _init_worker(specs: Sequence[str], count_lone_boundary: bool) -> None:
    global _WORKER_SEGMENTERS
    from tokstudy.specs import parse_tokenizer_spec
    from tokstudy.tokenization.loading import load_tokenizer

    _WORKER_SEGMENTERS = []
    for spec in specs:
        name, path = parse_tokenizer_spec(spec)
        _WORKER_SEGMENTERS.append(load_tokenizer(path, name=name, count_lone_boundary=count_lone_boundary))


def type_counts(segmenter, types: Sequence[str]):
    """``(segmentation, pieces per type, unknown pieces per type)``: each distinct word segmented once.

    Shared by the streamed statistics here and the corpus statistics of
    :mod:`tokstudy.analysis.corpus.counts`; rows then point to their type (``counts[word_type]``).
    """
    res = segmenter.segment(types)
    counts = np.diff(res.offsets)
    unk = np.zeros(len(types), np.int64)
    if len(res.unk):
        np.add.at(unk, np.repeat(np.arange(len(types)), counts), res.unk.astype(np.int64))
    return res, counts, unk


def chunk_sums(segmenters, sentences: Sequence, chunk_index: int, settings: StreamSettings) -> list[StreamAggregate]:
    """Sums of one chunk for each segmenter (pure; used by workers and by ``processes=1``)."""
    words: list[str] = []
    lengths: list[int] = []
    ne_flags: list[int] = []  # 0 ne, 1 non-ne, 2 unlabelled
    for s in sentences:
        if isinstance(s, str):
            ws = s.split()
            words.extend(ws)
            ne_flags.extend([2] * len(ws))
        else:
            ws = s.words
            words.extend(ws)
            ne_flags.extend([2] * len(ws) if s.tags is None else [0 if t != "O" else 1 for t in s.tags])
        lengths.append(len(ws))
    n_sent = len(lengths)
    sent = np.repeat(np.arange(n_sent), lengths)
    flag = np.asarray(ne_flags, dtype=np.int64)
    from tokstudy.analysis.table.factorize import factorize

    wtype, types = factorize(words)
    B = settings.n_resamples
    weights = None
    if B:
        rng = np.random.default_rng([settings.seed, chunk_index])
        weights = rng.poisson(1.0, size=(B, n_sent)).astype(np.float64)
    out = []
    for seg in segmenters:
        _, counts, unk = type_counts(seg, types)
        p = counts[wtype].astype(np.float64)
        u = unk[wtype].astype(np.float64)
        c = (p >= 2).astype(np.float64)
        cols = np.stack([np.ones_like(p), p, c, u, p * c], axis=1)  # (n_words, _NQ)
        per_sent = np.zeros((n_sent, 3, _NQ))
        for k, mask in enumerate((flag == 0, flag == 1, np.ones(len(flag), bool))):
            for q in range(_NQ):
                per_sent[:, k, q] = np.bincount(sent[mask], weights=cols[mask, q], minlength=n_sent)
        flat = per_sent.reshape(n_sent, 3 * _NQ)
        totals = flat.sum(0).reshape(3, _NQ)
        boot = (weights @ flat).reshape(B, 3, _NQ) if B else np.zeros((0, 3, _NQ))
        n_sentences = (per_sent[:, :, 0] > 0).sum(0).astype(np.int64)
        out.append(StreamAggregate(totals, boot, n_sentences))
    return out


def _work(task):
    index, sentences, settings = task
    return chunk_sums(_WORKER_SEGMENTERS, sentences, index, settings)


# ---- driver ------------------------------------------------------------------------


def _chunks(sentences: Iterable, size: int) -> Iterator[list]:
    it = iter(sentences)
    while True:
        chunk = list(itertools.islice(it, size))
        if not chunk:
            return
        yield chunk


def stream_stats(
    sentences: Iterable[str | Sentence],
    tokenizers: Sequence[str],
    settings: StreamSettings | None = None,
    *,
    progress: bool = False,
) -> StreamedStats:
    """Stream ``sentences`` through the tokenizers at paths/specs ``tokenizers`` (``[NAME=]PATH``).

    Tokenizers are given by path, not as objects, because each worker process loads
    its own copy once. Raises what the tokenizer loader raises (e.g.
    :class:`~tokstudy.errors.TokenizerLoadError`) before any text is read.
    """
    settings = settings or StreamSettings()
    _init_worker(tokenizers, settings.count_lone_boundary)  # fail early, and learn names/policies
    local = list(_WORKER_SEGMENTERS)
    names = tuple(s.name for s in local)
    policies = {s.name: s.describe_boundary_policy() for s in local}
    aggs: list[StreamAggregate] | None = None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="streaming", unit="sentence")

    def add(part, n):
        nonlocal aggs
        aggs = part if aggs is None else [a.merge(b) for a, b in zip(aggs, part)]
        if bar is not None:
            bar.update(n)

    n_chunks = 0
    if settings.processes == 1:
        for i, chunk in enumerate(_chunks(sentences, settings.chunk_sentences)):
            add(chunk_sums(local, chunk, i, settings), len(chunk))
            n_chunks += 1
    else:
        ctx = mp.get_context("spawn")  # no fork of a process holding tokenizer threads
        window = 2 * settings.processes
        with ctx.Pool(
            settings.processes, initializer=_init_worker, initargs=(list(tokenizers), settings.count_lone_boundary)
        ) as pool:
            pending = []
            for i, chunk in enumerate(_chunks(sentences, settings.chunk_sentences)):
                pending.append((pool.apply_async(_work, ((i, chunk, settings),)), len(chunk)))
                n_chunks += 1
                while len(pending) >= window:
                    res, n = pending.pop(0)
                    add(res.get(), n)
            for res, n in pending:
                add(res.get(), n)
    if bar is not None:
        bar.close()
    if aggs is None:
        from tokstudy.errors import DataFormatError

        raise DataFormatError("no sentences to stream; the corpus is empty")
    return StreamedStats(names, policies, dict(zip(names, aggs)), settings, n_chunks)
