"""Byte pieces: pieces that are bytes, not whole characters, whatever made them.

Two mechanisms turn text a vocabulary lacks into UTF-8 bytes instead of segmenting it:

* **byte fallback** (SentencePiece, Hugging Face BPE with ``byte_fallback``): a character the vocabulary
  lacks becomes its bytes as pieces ``<0xE1>`` ``<0x88>`` ``<0x9B>``, flagged by the segmenter and
  counted in :mod:`tokstudy.analysis.table.coverage`;
* **byte-level BPE** (GPT-2, Llama-3, tiktoken encodings, Mistral's Tekken): every piece is a byte string,
  and where no merges were learnt for a script its pieces are single bytes of its characters. Nothing is
  flagged: Tekken on Amharic gives 11.6 pieces a word at 1.01 bytes a piece, 0 unknown and 0 byte-fallback.

Both are counted here under one definition. A **byte piece** is a piece whose bytes are not whole UTF-8
characters: a byte-fallback piece of a byte >= 0x80 (part of a multi-byte character; ``<0x41>`` is a whole
``A``), or a byte-level piece whose bytes do not decode as UTF-8 on their own (``\\xe1\\x88`` of ``ሀ``, or
``ሀ`` plus the first byte of the next character). Byte-level pieces are read back to bytes through GPT-2's
byte-to-unicode map, the form every byte-level segmenter here shows them in
(:func:`tokstudy.tokenization.tiktoken_.byte_to_unicode`); a piece with a character outside that map (an
added token written as text) is whole text.

:func:`byte_piece_flags` flags them, :func:`byte_pieces_share` counts them per dataset, and
:func:`byte_piece_warnings` names each (dataset, tokenizer) above :data:`BYTE_PIECE_THRESHOLD` whose
byte-fallback share is not already warned about (that warning says the same, with the characters spelled).

>>> from tokstudy.tokenization.tiktoken_ import byte_to_unicode
>>> as_piece = lambda raw: "".join(byte_to_unicode()[b] for b in raw)
>>> pieces = [as_piece(" ሀ".encode()), as_piece("ሀ".encode()[:2]), as_piece("ሀ".encode()[2:]), "<0xE1>"]
>>> byte_piece_flags(pieces, byte_level=True).tolist()
[False, True, True, False]
>>> byte_piece_flags(["▁a", "<0xE1>", "<0x41>"], byte_level=False, fallback=np.array([False, True, True])).tolist()
[False, True, False]
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tokstudy.analysis.table.coverage import (
    BYTE_THRESHOLD,
    UnknownPiecesWarning,
    byte_fallback_warnings,
    coverage_warnings,
    main_scripts,
)
from tokstudy.tokenization.tiktoken_ import byte_to_unicode

#: share of a dataset's pieces that are byte pieces above which a warning is given (10 %). Why not 1 % like
#: byte fallback: a byte-level BPE splits some characters of any text outside its training data (a rare
#: accented capital, a rare CJK character) into bytes by design, and a few such pieces do not change what its
#: figures measure. At one piece in ten the fertility and the continued-word share count bytes as much as
#: subwords; Tekken on Amharic reaches 99 %, and byte fallback on Yoruba 10.7 %.
BYTE_PIECE_THRESHOLD = 0.10

_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")


class BytePiecesWarning(UnknownPiecesWarning):
    """More than :data:`BYTE_PIECE_THRESHOLD` of a dataset's pieces are bytes, not whole characters.

    A kind of :class:`~tokstudy.analysis.table.coverage.UnknownPiecesWarning` (the vocabulary has no
    pieces for the text), so whatever shows or filters those shows or filters these.
    """


def _unicode_to_byte() -> dict[str, int]:
    return {c: b for b, c in enumerate(byte_to_unicode())}


_TO_BYTE = _unicode_to_byte()


def byte_level_bytes(piece: str) -> bytes | None:
    """The bytes a byte-level BPE piece stands for (``"Ġa"`` -> ``b" a"``); ``None`` for text outside the map."""
    try:
        return bytes(_TO_BYTE[c] for c in piece)
    except KeyError:
        return None


def _partial_byte_level(piece: str) -> bool:
    raw = byte_level_bytes(piece)
    if raw is None:
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _partial_fallback(piece: str) -> bool:
    m = _FALLBACK.fullmatch(piece)
    return m is not None and int(m.group(1), 16) >= 0x80


def byte_piece_flags(pieces: Sequence[str], *, byte_level: bool, fallback: np.ndarray | None = None) -> np.ndarray:
    """``bool`` per piece, ``True`` for a byte piece (see the module docstring).

    ``byte_level``: the tokenizer is a byte-level BPE (its pieces are bytes in GPT-2's map); ``fallback``:
    the segmenter's byte-fallback flags (``Segmentation.byte``), ``None`` for none. Each distinct piece is
    read once.
    """
    n = len(pieces)
    flags = np.zeros(n, dtype=bool)
    if byte_level and n:
        memo: dict[str, bool] = {}
        for p in set(pieces):
            memo[p] = _partial_byte_level(p)
        flags = np.fromiter((memo[p] for p in pieces), dtype=bool, count=n)
    if fallback is not None and fallback.any():
        at = np.flatnonzero(fallback)
        flags[at] = [_partial_fallback(pieces[i]) for i in at.tolist()]
    return flags


@dataclass(frozen=True)
class BytePiecesShare:
    """Byte pieces of one dataset under one tokenizer (fields as :class:`~.coverage.UnknownShare`'s).

    ``top_chars`` are the multi-byte characters of the words that have byte pieces, the characters a
    byte-level or byte-fallback tokenizer splits into bytes.
    """

    dataset: str
    tokenizer: str
    n_pieces: int
    n_partial: int
    top_chars: tuple[tuple[str, int], ...]
    scripts: tuple[str, ...]

    @property
    def share(self) -> float:
        return self.n_partial / self.n_pieces if self.n_pieces else 0.0

    def message(self) -> str:
        chars = " ".join(f"{c!r}" for c, _ in self.top_chars)
        script = f" ({', '.join(self.scripts)} script{'s' if len(self.scripts) > 1 else ''})" if self.scripts else ""
        return (
            f"tokenizer {self.tokenizer!r} on dataset {self.dataset!r}: {self.share:.1%} of the pieces "
            f"({self.n_partial:,} of {self.n_pieces:,}) are byte pieces, UTF-8 bytes of a character rather than "
            f"whole characters (the vocabulary has no pieces for this text); multi-byte characters of the words "
            f"concerned: {chars}{script}. Its piece counts there measure UTF-8 bytes, not segmentation."
        )


def byte_pieces_share(table, tokenizer: str, *, top: int = 8, detail_above: float = 0.0) -> list[BytePiecesShare]:
    """Per dataset of ``table``, the byte pieces of ``tokenizer`` and the characters of the words that have them.

    Characters are collected only for datasets whose share exceeds ``detail_above``.
    """
    col = table.column(tokenizer)
    n_ds = len(table.datasets)
    rows_partial = col.partial_counts().astype(np.int64)
    pieces_by_ds = np.bincount(table.dataset_code, weights=col.n_pieces.astype(np.int64), minlength=n_ds)
    partial_by_ds = np.bincount(table.dataset_code, weights=rows_partial, minlength=n_ds).astype(np.int64)
    out = []
    for d, label in enumerate(table.datasets):
        n_pieces, n_partial = int(pieces_by_ds[d]), int(partial_by_ds[d])
        if not n_partial or n_partial <= detail_above * n_pieces:
            out.append(BytePiecesShare(label, tokenizer, n_pieces, n_partial, (), ()))
            continue
        rows = np.flatnonzero((table.dataset_code == d) & (rows_partial > 0))
        types, freq = np.unique(table.word_type[rows], return_counts=True)
        chars: Counter = Counter()
        for t, f in zip(types.tolist(), freq.tolist()):
            for ch in table.types[t]:
                if ord(ch) > 0x7F:
                    chars[ch] += f
        top_chars = tuple(chars.most_common(top))
        out.append(BytePiecesShare(label, tokenizer, n_pieces, n_partial, top_chars, main_scripts(chars)))
    return out


def byte_piece_warnings(
    table, *, threshold: float = BYTE_PIECE_THRESHOLD, fallback_threshold: float = BYTE_THRESHOLD
) -> list[BytePiecesShare]:
    """Every (dataset, tokenizer) of ``table`` whose byte-piece share exceeds ``threshold``, except those whose
    byte-fallback share already exceeds ``fallback_threshold`` (their byte-fallback warning says it)."""
    warned = {(s.dataset, s.tokenizer) for s in byte_fallback_warnings(table, threshold=fallback_threshold)}
    return [
        s
        for t in table.tokenizer_names
        for s in byte_pieces_share(table, t, detail_above=threshold)
        if s.share > threshold and (s.dataset, s.tokenizer) not in warned
    ]


def coverage_notes(table) -> list[str]:
    """The message of every unknown-piece, byte-fallback and byte-piece warning of ``table`` (for reports)."""
    return (
        [s.message() for s in coverage_warnings(table)]
        + [s.message() for s in byte_fallback_warnings(table)]
        + [s.message() for s in byte_piece_warnings(table)]
    )
