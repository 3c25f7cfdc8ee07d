"""Corpus statistics of raw text per language, as sums that merge by addition in any order.

A worker turns one :class:`~tokstudy.analysis.corpus.partitions.Partition` into a
:class:`CorpusAggregate`; aggregates of all partitions are added (associative and commutative,
exact integer sums), and :func:`~tokstudy.analysis.corpus.figures.summarize` (``figures.py``) turns the total
into figures. So the result does not
depend on how the corpus was cut, which engine ran the partitions, or in which order they came back.

**Figures** (per tokenizer and language, and over all languages): fertility (pieces per word),
% continued words (2+ pieces), % unknown pieces, pieces per continued word, compression
(characters and UTF-8 bytes of the words per piece), all with bootstrap intervals; and the
intrinsic metrics of :mod:`tokstudy.analysis.stats.intrinsic` (Shannon entropy, Rényi efficiency,
vocabulary utilisation) from the piece-count histogram, points only. Words are the
whitespace-separated tokens of each non-blank line; a line is one sentence or paragraph.

**A bootstrap that merges and ignores the partitioning.** The resampling unit is the line.
Resampling lines needs, for every resample, a weight per line; drawing those weights from a
generator seeded per partition makes the intervals depend on the cut. Here instead each line is
assigned to one of ``n_buckets`` buckets by a hash of ``(seed, file key, byte offset of the line)``
(SplitMix64): a line's bucket is a property of the line, the same whichever partition, worker or
engine reads it. Workers keep, per bucket, the integer totals of every quantity (lines, words,
pieces, continued words, unknown pieces, pieces of continued words, characters, bytes):
``buckets[n_buckets, 8]``, added across partitions. The bootstrap then resamples **buckets**:
resample ``b`` draws multinomial counts ``w[b, :]`` over the buckets (seeded by ``seed`` only) and
its totals are ``w @ buckets``, so identical bucket totals give identical intervals, bit for bit.
Buckets are random groups of lines, so resampling buckets is a bootstrap of lines in groups of
~``n_lines / n_buckets`` (a random-group bootstrap; with the default 1000 buckets the percentile
intervals match a line bootstrap closely on corpora of thousands of lines and up). Memory is
constant in the corpus size: ``n_buckets × 8`` integers per language and tokenizer, plus at most one
count per vocabulary piece.

>>> agg = aggregate_lines([(0, "ab abc"), (7, "a")], [_Chars(2)], file_key="x.txt", language="xx",
...                       settings=CorpusStatsSettings(n_buckets=4, n_resamples=0))
>>> from tokstudy.analysis.corpus.figures import summarize
>>> summarize(agg, CorpusStatsSettings(n_buckets=4, n_resamples=0)).figures["chars2"]["xx"].fertility.value
1.3333333333333333
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from tokstudy.analysis.corpus.gc_pause import cyclic_gc_paused
from tokstudy.analysis.corpus.partitions import iter_partition_lines
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.intrinsic import DEFAULT_RENYI_ALPHA
from tokstudy.analysis.table.factorize import factorize
from tokstudy.inputs.tokenizers import load_tokenizers
from tokstudy.tokenization.base import Segmentation

#: per-bucket integer quantities, in column order
QUANTITIES = ("lines", "words", "pieces", "continued", "unk", "pieces_continued", "chars", "bytes")
LINES, WORDS, PIECES, CONTINUED, UNK, PIECES_CONTINUED, CHARS, BYTES = range(len(QUANTITIES))
#: the pseudo-language of the figures over every language
ALL = "all"
#: the key of the unknown piece in piece histograms
UNK_KEY = "\x00<unk>"


@dataclass(frozen=True)
class CorpusStatsSettings(BootstrapSettings):
    """What is counted and how intervals are drawn (the same on every worker).

    ``n_resamples`` (default 200, 0 = no intervals), ``confidence`` and ``seed`` (which also seeds
    the line -> bucket assignment) are those of :class:`~tokstudy.analysis.stats.estimates.BootstrapSettings`.

    Attributes:
        n_buckets: resampling units lines are hashed into (see the module docstring).
        chunk_lines: lines a worker segments at once (bounds its memory).
        count_lone_boundary: passed to every tokenizer (see :mod:`tokstudy.tokenization.base`).
        tiktoken_pattern: pre-tokenizer pattern of the tiktoken rank files among the tokenizers
            (see :func:`~tokstudy.tokenization.tiktoken_.pattern_for`; ``None``: each file's own).
        renyi_alpha: order of the Rényi efficiency.
    """

    n_resamples: int = 200
    n_buckets: int = 1000
    chunk_lines: int = 2000
    count_lone_boundary: bool = True
    tiktoken_pattern: str | None = None
    renyi_alpha: float = DEFAULT_RENYI_ALPHA

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_buckets < 1 or self.chunk_lines < 1:
            raise ValueError(f"n_buckets and chunk_lines must be >= 1, got {self.n_buckets}, {self.chunk_lines}")


@dataclass
class LanguageSums:
    """Sums of one tokenizer on one language: ``buckets[bucket, quantity]`` and piece -> occurrences."""

    buckets: np.ndarray
    pieces: dict[str, int] = field(default_factory=dict)

    def merge(self, other: LanguageSums) -> LanguageSums:
        self.buckets += other.buckets
        for piece, n in other.pieces.items():
            self.pieces[piece] = self.pieces.get(piece, 0) + n
        return self


@dataclass
class CorpusAggregate:
    """Mergeable sums of a set of partitions: ``sums[tokenizer][language]``.

    Attributes:
        sums: the per-language sums of each tokenizer.
        vocab_sizes: vocabulary size of each tokenizer.
        partitions: how many partitions were added in.
    """

    sums: dict[str, dict[str, LanguageSums]]
    vocab_sizes: dict[str, int]
    partitions: int = 1

    @classmethod
    def empty(cls) -> CorpusAggregate:
        return cls({}, {}, 0)

    def merge(self, other: CorpusAggregate) -> CorpusAggregate:
        """Add ``other`` into this one (associative, commutative, exact)."""
        for tok, langs in other.sums.items():
            mine = self.sums.setdefault(tok, {})
            for lang, s in langs.items():
                if lang in mine:
                    mine[lang].merge(s)
                else:
                    mine[lang] = LanguageSums(s.buckets.copy(), dict(s.pieces))
        self.vocab_sizes.update(other.vocab_sizes)
        self.partitions += other.partitions
        return self


# ---- worker side: lines -> sums ----------------------------------------------------------


def bucket_of(offsets: np.ndarray, *, file_key: str, seed: int, n_buckets: int) -> np.ndarray:
    """Bucket of each line from its byte offset, file key and seed (SplitMix64 finaliser)."""
    salt = int.from_bytes(hashlib.blake2b(f"{seed}\0{file_key}".encode(), digest_size=8).digest(), "little")
    with np.errstate(over="ignore"):
        x = np.asarray(offsets, dtype=np.uint64) ^ np.uint64(salt)
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x % np.uint64(n_buckets)).astype(np.int64)


def aggregate_lines(
    lines: Iterable[tuple[int, str]],
    segmenters: Sequence,
    *,
    file_key: str,
    language: str,
    settings: CorpusStatsSettings,
) -> CorpusAggregate:
    """Sums of ``(byte offset, line)`` pairs of one file for each segmenter (pure; no I/O)."""
    items = ((offset, text.split()) for offset, text in lines)
    return aggregate_words(items, segmenters, file_key=file_key, language=language, settings=settings)


def aggregate_words(
    items: Iterable[tuple[int, Sequence[str]]],
    segmenters: Sequence,
    *,
    file_key: str,
    language: str,
    settings: CorpusStatsSettings,
) -> CorpusAggregate:
    """Sums of ``(key, words)`` lines for each segmenter, kept under ``language`` (pure; no I/O).

    A line's bucket is a function of ``(settings.seed, file_key, key)``: give each line one key,
    whatever batch or worker it comes in (a file's lines: their byte offsets).
    """
    sums = {
        seg.name: {language: LanguageSums(np.zeros((settings.n_buckets, len(QUANTITIES)), np.int64))}
        for seg in segmenters
    }
    batch: list[tuple[int, Sequence[str]]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= settings.chunk_lines:
            _add_chunk(batch, segmenters, sums, file_key, language, settings)
            batch = []
    if batch:
        _add_chunk(batch, segmenters, sums, file_key, language, settings)
    return CorpusAggregate(sums, {seg.name: int(seg.vocab_size) for seg in segmenters})


def _add_chunk(batch, segmenters, sums, file_key, language, settings) -> None:
    offsets = np.fromiter((o for o, _ in batch), dtype=np.int64, count=len(batch))
    split = [ws for _, ws in batch]
    lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    words = [w for ws in split for w in ws]
    line_bucket = bucket_of(offsets, file_key=file_key, seed=settings.seed, n_buckets=settings.n_buckets)
    word_bucket = np.repeat(line_bucket, lengths)
    wtype, types = factorize(words)
    freq = np.bincount(wtype, minlength=len(types))
    type_chars = np.fromiter(map(len, types), dtype=np.int64, count=len(types))
    type_bytes = np.fromiter((len(t.encode("utf-8")) for t in types), dtype=np.int64, count=len(types))
    U = settings.n_buckets
    shared = np.zeros((U, len(QUANTITIES)), np.int64)
    shared[:, LINES] = np.bincount(line_bucket[lengths > 0], minlength=U)
    shared[:, WORDS] = np.bincount(word_bucket, minlength=U)
    shared[:, CHARS] = _bucket_sum(word_bucket, type_chars[wtype], U)
    shared[:, BYTES] = _bucket_sum(word_bucket, type_bytes[wtype], U)
    for seg in segmenters:
        target = sums[seg.name][language]
        res, counts, unk = type_counts(seg, types)
        p = counts[wtype]
        c = (p >= 2).astype(np.int64)
        b = target.buckets
        b += shared
        b[:, PIECES] += _bucket_sum(word_bucket, p, U)
        b[:, CONTINUED] += _bucket_sum(word_bucket, c, U)
        b[:, UNK] += _bucket_sum(word_bucket, unk[wtype], U)
        b[:, PIECES_CONTINUED] += _bucket_sum(word_bucket, p * c, U)
        hist = target.pieces
        # unknown pieces may be shown as their surface text; they are one vocabulary entry
        pieces = (
            [UNK_KEY if u else piece for piece, u in zip(res.pieces, res.unk.tolist())] if res.unk.any() else res.pieces
        )
        for piece, n in zip(pieces, np.repeat(freq, counts).tolist()):
            hist[piece] = hist.get(piece, 0) + n


def type_counts(segmenter, types: Sequence[str]):
    """``(segmentation, pieces per type, unknown pieces per type)``: each distinct word segmented once;
    rows then point to their type (``counts[word_type]``)."""
    res = segmenter.segment(types)
    counts = np.diff(res.offsets)
    unk = np.zeros(len(types), np.int64)
    if len(res.unk):
        np.add.at(unk, np.repeat(np.arange(len(types)), counts), res.unk.astype(np.int64))
    return res, counts, unk


def _bucket_sum(bucket: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    # float64 bincount is exact for integer sums below 2**53 per chunk
    return np.rint(np.bincount(bucket, weights=values, minlength=n)).astype(np.int64)


@lru_cache(maxsize=4)
def worker_segmenters(
    tokenizers: tuple[str, ...], count_lone_boundary: bool, tiktoken_pattern: str | None = None
) -> tuple:
    """The tokenizers of ``tokenizers`` (``[NAME=]PATH``), loaded once per worker process."""
    return tuple(
        load_tokenizers(list(tokenizers), count_lone_boundary=count_lone_boundary, tiktoken_pattern=tiktoken_pattern)
    )


def partition_aggregate(partition, tokenizers: tuple[str, ...], settings: CorpusStatsSettings) -> CorpusAggregate:
    """The task a worker runs: read one partition itself and return its sums."""
    segmenters = worker_segmenters(tuple(tokenizers), settings.count_lone_boundary, settings.tiktoken_pattern)
    with cyclic_gc_paused():  # see tokstudy.analysis.corpus.gc_pause: 13-24 % of the CPU otherwise
        return aggregate_lines(
            iter_partition_lines(partition),
            segmenters,
            file_key=partition.key,
            language=partition.language,
            settings=settings,
        )


class _Chars:
    """Doctest segmenter: chunks of ``size`` characters."""

    def __init__(self, size: int):
        self.name, self.vocab_size, self.size, self._seg = f"chars{size}", 100, size, Segmentation

    def segment(self, words):
        return self._seg.from_lists([[w[i : i + self.size] for i in range(0, len(w), self.size)] for w in words])
