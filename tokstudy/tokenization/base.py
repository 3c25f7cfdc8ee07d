"""The one interface over every tokenizer kind: pre-split words in, per-word pieces out.

A :class:`Segmenter` turns a batch of words into a :class:`Segmentation`, a flat
columnar result (all pieces in one list plus word offsets, like an Arrow list
array). Concrete segmenters (SentencePiece, Hugging Face tokenizers, WordPiece
vocabularies) live beside this file; :func:`tokstudy.tokenization.load_tokenizer`
picks one for a path or name.

Counting conventions (decided once, here, and reported in every output):

* **In context.** A word's pieces are the pieces the model sees for it in its sentence;
  :mod:`tokstudy.tokenization.context` defines that per tokenizer family (``▁`` for
  SentencePiece, ``Ġ`` + a leading space for byte-level BPE, ``##`` for WordPiece).
* **Lone word-boundary piece.** SentencePiece may split ``","`` into ``["▁", ","]``
  (byte-level BPE likewise ``" 1"`` into ``["Ġ", "1"]``).
  The mALBERT paper's Table 3 counts that ``▁`` as a piece, so
  ``count_lone_boundary=True`` is the default; ``False`` drops lone ``▁`` pieces
  before counting (never below one piece per non-empty word).
* **Unknown pieces** count as one piece each and are flagged in ``Segmentation.unk``.
* **Byte-fallback pieces** (``<0xE1>``: a SentencePiece or Hugging Face BPE with
  ``byte_fallback`` spells a character it lacks as its UTF-8 bytes) count as one piece each
  and are flagged in ``Segmentation.byte``: a text made of them measures UTF-8 bytes, not
  segmentation, so every output reports their share beside the unknown pieces'. Byte-level
  BPE (GPT-2, tiktoken) pieces are bytes by design, not a fallback, and are never flagged.
* **Empty words** (``""``) get zero pieces; readers never produce them.
* **Normalisation** (NFKC, case folding) may change a word's characters or length;
  pieces are reported as the tokenizer emits them, and alignment is by word, never by
  character offset, so it cannot shift.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tokstudy.tokenization.context import METASPACE, WordContext

#: SentencePiece's word-boundary marker (U+2581).
BOUNDARY = METASPACE


@dataclass(frozen=True)
class Segmentation:
    """Pieces of a batch of words, stored flat.

    Attributes:
        pieces: every piece of every word, in order.
        offsets: ``int64`` array of length ``n_words + 1``; word ``i`` has pieces
            ``pieces[offsets[i]:offsets[i + 1]]``.
        unk: ``bool`` array, one per piece, ``True`` where the piece is the unknown token.
        ids: the vocabulary id of each piece, when the tokenizer gives ids (``None`` otherwise);
            lets the intrinsic metrics count pieces without hashing their strings again.
        byte: ``bool`` array, one per piece, ``True`` where the piece is a byte-fallback piece
            (``<0xE1>``); ``None`` for a tokenizer without byte fallback.
    """

    pieces: list[str]
    offsets: np.ndarray
    unk: np.ndarray
    ids: np.ndarray | None = None
    byte: np.ndarray | None = None

    def __post_init__(self) -> None:
        if len(self.offsets) == 0 or self.offsets[-1] != len(self.pieces) or len(self.unk) != len(self.pieces):
            raise ValueError("inconsistent Segmentation: offsets/unk do not match pieces")
        if self.ids is not None and len(self.ids) != len(self.pieces):
            raise ValueError("inconsistent Segmentation: ids do not match pieces")
        if self.byte is not None and len(self.byte) != len(self.pieces):
            raise ValueError("inconsistent Segmentation: byte flags do not match pieces")

    @property
    def byte_flags(self) -> np.ndarray:
        """:attr:`byte`, or all ``False`` for a tokenizer without byte fallback."""
        return self.byte if self.byte is not None else np.zeros(len(self.pieces), dtype=bool)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def counts(self) -> np.ndarray:
        """Number of pieces of each word (``int64``)."""
        return np.diff(self.offsets)

    def pieces_of(self, i: int) -> list[str]:
        """The pieces of word ``i``."""
        return self.pieces[self.offsets[i] : self.offsets[i + 1]]

    def as_lists(self) -> list[list[str]]:
        """Per-word piece lists (convenient, not vectorised)."""
        o = self.offsets
        return [self.pieces[o[i] : o[i + 1]] for i in range(len(o) - 1)]

    @classmethod
    def from_lists(cls, per_word: Sequence[Sequence[str]], unk_piece: str | None = None) -> "Segmentation":
        """Build from per-word piece lists (used by slow paths and tests)."""
        counts = np.fromiter((len(p) for p in per_word), dtype=np.int64, count=len(per_word))
        offsets = np.zeros(len(per_word) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        flat = [p for ps in per_word for p in ps]
        unk = (
            np.array([p == unk_piece for p in flat], dtype=bool) if unk_piece is not None else np.zeros(len(flat), bool)
        )
        return cls(flat, offsets, unk)


class Segmenter(ABC):
    """Splits pre-split words into subword pieces, one word at a time, in batches.

    Subclasses implement :meth:`_segment` on a batch of non-empty words and set
    :attr:`name`, :attr:`kind` and :attr:`vocab_size`.
    """

    #: short display name, e.g. ``"spm-unigram-32k"``.
    name: str
    #: ``"sentencepiece"``, ``"hf-tokenizers"`` or ``"wordpiece"``.
    kind: str
    #: number of entries in the vocabulary.
    vocab_size: int
    #: whether a lone boundary piece (``▁``, ``Ġ``) counts as a piece (see module docstring).
    count_lone_boundary: bool = True
    #: how a word is seen inside its sentence, and the tokenizer's boundary marker
    #: (see :mod:`tokstudy.tokenization.context`).
    context: WordContext = WordContext("sentencepiece", "", METASPACE)

    @abstractmethod
    def segment(self, words: Sequence[str]) -> Segmentation:
        """Each word's pieces as inside a sentence (:attr:`context`); ``len(result) == len(words)``."""

    def describe_boundary_policy(self) -> str:
        """One sentence stating how boundary pieces were counted, naming this tokenizer's own marker."""
        return self.context.describe(count_lone_boundary=self.count_lone_boundary)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, vocab_size={self.vocab_size})"
