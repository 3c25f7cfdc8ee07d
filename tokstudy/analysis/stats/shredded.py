"""Shredded frequent words: the words a tokenizer splits into many pieces, ranked by how often they occur.

A word *shredded* by a tokenizer is one it splits into ``min_pieces`` (K, default 3) pieces or more,
counted as everywhere in tokstudy (:mod:`tokstudy.tokenization.base`: the pieces the model sees for
the word in its sentence, a lone boundary piece counted or not as the table was built). The ranking
answers "which frequent words does my tokenizer split into many pieces?":

* each shredded word with its **frequency** (occurrences in the running text of the table, or of one
  language of it), its number of pieces and the pieces themselves, ranked by frequency (the share of
  the running text it covers), then by pieces, then alphabetically;
* the **token share**: the pieces of all shredded occurrences over all pieces of the text, i.e. the
  share of the model's input those words account for; and the **word share**, their occurrences over
  all words;
* side by side across tokenizers (:class:`ShreddedComparison`): the most frequent words that at least
  one tokenizer shreds, with every tokenizer's pieces count, so a word one keeps whole and another
  shreds shows at a glance.

Everything is a ``bincount`` over the table's word-type column: each distinct word was segmented once.

>>> from tokstudy.data.types import Dataset, Sentence
>>> from tokstudy.analysis.table import segmentation_table
>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Chars(Segmenter):
...     name, kind, vocab_size = "chars", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists([list(w) for w in words])
>>> ds = Dataset((Sentence(("the", "cat", "a", "the"), None),), name="demo", language="en", split="test")
>>> r = shredded_words(segmentation_table([ds], [Chars()], progress=False), "chars")
>>> [(w.word, w.frequency, w.n_pieces) for w in r.words], r.n_shredded_tokens, r.n_tokens
([('the', 2, 3), ('cat', 1, 3)], 9, 10)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from tokstudy.analysis.table import SegmentationTable

#: the default K: a word split into this many pieces or more is shredded
DEFAULT_MIN_PIECES = 3
#: how many words a ranking keeps by default
DEFAULT_LIMIT = 50


class ShreddedWord(NamedTuple):
    """One shredded word of a ranking (a row of the table: a named tuple, tens of thousands are built at once).

    Attributes:
        word: the word as it stands in the text.
        frequency: its occurrences in the running text ranked.
        n_pieces: its pieces under the tokenizer.
        pieces: the pieces themselves.
        tokens: ``frequency * n_pieces``: the pieces its occurrences put into the text.
    """

    word: str
    frequency: int
    n_pieces: int
    pieces: tuple[str, ...]

    @property
    def tokens(self) -> int:
        return self.frequency * self.n_pieces


@dataclass(frozen=True)
class ShreddedWords:
    """The shredded words of one tokenizer over the table or one language of it.

    Attributes:
        tokenizer: the tokenizer's name.
        language: the language ranked, ``None`` for the whole table.
        min_pieces: K: words of K pieces or more are shredded.
        n_words: running words ranked over.
        n_tokens: their pieces.
        n_shredded_words: occurrences of shredded words.
        n_shredded_tokens: their pieces.
        n_distinct: distinct shredded words (the ranking's full length, before ``limit``).
        words: the ranking, most frequent first, at most ``limit`` words.
        boundary_policy: how a lone word-boundary piece was counted.
    """

    tokenizer: str
    language: str | None
    min_pieces: int
    n_words: int
    n_tokens: int
    n_shredded_words: int
    n_shredded_tokens: int
    n_distinct: int
    words: tuple[ShreddedWord, ...]
    boundary_policy: str = ""

    @property
    def token_share(self) -> float:
        """Share of the text's pieces that shredded words account for (0 to 1)."""
        return self.n_shredded_tokens / self.n_tokens if self.n_tokens else float("nan")

    @property
    def word_share(self) -> float:
        """Share of the running words that are shredded (0 to 1)."""
        return self.n_shredded_words / self.n_words if self.n_words else float("nan")


class ComparedWord(NamedTuple):
    """A word side by side: its frequency and its pieces count under every tokenizer of the comparison."""

    word: str
    frequency: int
    n_pieces: tuple[int, ...]


@dataclass(frozen=True)
class ShreddedComparison:
    """The most frequent words that at least one tokenizer shreds, with every tokenizer's pieces count.

    Attributes:
        language: the language compared, ``None`` for the whole table.
        tokenizers: the order of :attr:`ComparedWord.n_pieces`.
        min_pieces: K.
        words: most frequent first, at most ``limit``.
    """

    language: str | None
    tokenizers: tuple[str, ...]
    min_pieces: int
    words: tuple[ComparedWord, ...]

    def kept_whole_by(self, word: ComparedWord) -> tuple[str, ...]:
        """The tokenizers that keep ``word`` in one piece."""
        return tuple(t for t, n in zip(self.tokenizers, word.n_pieces) if n == 1)

    def shredded_by(self, word: ComparedWord) -> tuple[str, ...]:
        """The tokenizers that split ``word`` into K pieces or more."""
        return tuple(t for t, n in zip(self.tokenizers, word.n_pieces) if n >= self.min_pieces)


@dataclass(frozen=True)
class ShreddedTable:
    """Every ranking of a table: per tokenizer and language, and the comparisons across tokenizers.

    Attributes:
        rankings: one per (language, tokenizer); the language is ``None`` for the whole table, and
            a table of several languages has one ranking per language instead.
        comparisons: one per language (``None``: the whole table).
        min_pieces: K.
    """

    rankings: tuple[ShreddedWords, ...]
    comparisons: tuple[ShreddedComparison, ...]
    min_pieces: int


def _check(min_pieces: int, limit: int | None) -> None:
    if min_pieces < 2:
        raise ValueError(f"min_pieces must be 2 or more (a word of 1 piece is whole), got {min_pieces}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be 0 or more, got {limit}")


def _rows(table: SegmentationTable, language: str | None) -> np.ndarray | None:
    """The rows of ``language`` (a mask), ``None`` for all rows; ``KeyError`` for a language not in the table."""
    if language is None:
        return None
    if language not in table.languages:
        raise KeyError(f"no language {language!r} in the table; it has {list(table.languages)}")
    return table.language_code == table.languages.index(language)


def type_frequencies(table: SegmentationTable, language: str | None = None) -> np.ndarray:
    """Occurrences of each distinct word (``table.types``) in the table, or in one language of it."""
    mask = _rows(table, language)
    types = table.word_type if mask is None else table.word_type[mask]
    return np.bincount(types, minlength=len(table.types))


def _ranked(freq: np.ndarray, pieces: np.ndarray, chosen: np.ndarray, types: Sequence[str]) -> np.ndarray:
    """Type indices of ``chosen``, most frequent first, then most pieces, then alphabetical."""
    idx = np.flatnonzero(chosen)
    if not len(idx):
        return idx
    words = np.asarray([types[i] for i in idx.tolist()], dtype=object)
    alpha = np.argsort(np.argsort(words, kind="stable"), kind="stable")  # rank of each word alphabetically
    order = np.lexsort((alpha, -pieces[idx], -freq[idx]))
    return idx[order]


def shredded_words(
    table: SegmentationTable,
    tokenizer: str | None = None,
    *,
    min_pieces: int = DEFAULT_MIN_PIECES,
    language: str | None = None,
    limit: int | None = DEFAULT_LIMIT,
) -> ShreddedWords:
    """The words ``tokenizer`` splits into ``min_pieces`` pieces or more, most frequent first.

    ``language`` ranks over that language's rows only; ``limit`` keeps the first words of the
    ranking (``None``: all); the counts (:attr:`ShreddedWords.n_shredded_tokens` ...) cover all of them.
    """
    _check(min_pieces, limit)
    col = table.column(tokenizer)
    freq = type_frequencies(table, language)
    pieces = np.diff(col.type_offsets)
    shredded = (freq > 0) & (pieces >= min_pieces)
    mask = _rows(table, language)
    n_pieces_rows = col.n_pieces if mask is None else col.n_pieces[mask]
    order = _ranked(freq, pieces, shredded, table.types)
    kept = order if limit is None else order[:limit]
    # plain lists: indexing numpy arrays one element at a time is what would cost here
    types, flat = table.types, col.type_pieces
    starts, ends = col.type_offsets[kept].tolist(), col.type_offsets[kept + 1].tolist()
    words = tuple(
        ShreddedWord(types[t], f, n, tuple(flat[a:b]))
        for t, f, n, a, b in zip(kept.tolist(), freq[kept].tolist(), pieces[kept].tolist(), starts, ends)
    )
    return ShreddedWords(
        tokenizer=col.name,
        language=language,
        min_pieces=min_pieces,
        n_words=int(freq.sum()),
        n_tokens=int(n_pieces_rows.sum()),
        n_shredded_words=int(freq[shredded].sum()),
        n_shredded_tokens=int((freq[shredded] * pieces[shredded]).sum()),
        n_distinct=int(shredded.sum()),
        words=words,
        boundary_policy=col.boundary_policy,
    )


def compare_shredded(
    table: SegmentationTable,
    tokenizers: Sequence[str] | None = None,
    *,
    min_pieces: int = DEFAULT_MIN_PIECES,
    language: str | None = None,
    limit: int | None = DEFAULT_LIMIT,
) -> ShreddedComparison:
    """The most frequent words at least one of ``tokenizers`` shreds, each with every tokenizer's pieces."""
    _check(min_pieces, limit)
    names = list(tokenizers) if tokenizers is not None else table.tokenizer_names
    freq = type_frequencies(table, language)
    counts = np.stack([np.diff(table.column(n).type_offsets) for n in names]) if names else np.zeros((0, len(freq)))
    most = counts.max(axis=0) if names else np.zeros(len(freq), np.int64)
    order = _ranked(freq, most, (freq > 0) & (most >= min_pieces), table.types)
    kept = order if limit is None else order[:limit]
    types = table.types
    words = tuple(
        ComparedWord(types[t], f, tuple(c))
        for t, f, c in zip(kept.tolist(), freq[kept].tolist(), counts[:, kept].T.tolist())
    )
    return ShreddedComparison(language, tuple(names), min_pieces, words)


def shredded_table(
    table: SegmentationTable,
    tokenizers: Sequence[str] | None = None,
    *,
    min_pieces: int = DEFAULT_MIN_PIECES,
    limit: int | None = DEFAULT_LIMIT,
) -> ShreddedTable:
    """Every tokenizer's ranking and the comparison across tokenizers; per language when the table has several.

    >>> # shredded_table(segmentation_table(datasets, segmenters), min_pieces=3).rankings[0].words[:5]
    """
    names = list(tokenizers) if tokenizers is not None else table.tokenizer_names
    languages: list[str | None] = list(table.languages) if len(table.languages) > 1 else [None]
    kw = {"min_pieces": min_pieces, "limit": limit}
    rankings = tuple(shredded_words(table, n, language=lang, **kw) for lang in languages for n in names)
    comparisons = tuple(compare_shredded(table, names, language=lang, **kw) for lang in languages)
    return ShreddedTable(rankings, comparisons, min_pieces)


def sentences_with_word(table: SegmentationTable, word: str, *, limit: int | None = None) -> list[tuple[str, int]]:
    """``(dataset label, sent_id)`` of each sentence holding ``word``, in table order, each sentence once."""
    try:
        t = table.types.index(word)
    except ValueError:
        return []
    rows = np.flatnonzero(table.word_type == t)
    sentences = np.unique(table.sentence[rows])
    if limit is not None:
        sentences = sentences[:limit]
    starts = table.sentence_offsets[sentences]
    return [
        (table.datasets[int(table.sentence_dataset[s])], int(table.sent_id[r]))
        for s, r in zip(sentences.tolist(), starts.tolist())
    ]
