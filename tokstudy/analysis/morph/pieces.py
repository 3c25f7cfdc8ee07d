"""Where a tokenizer's pieces cut a word: piece boundaries as byte offsets inside the word.

A word is segmented as the tokenizer sees it in running text (:mod:`tokstudy.tokenization.context`:
SentencePiece adds ``▁``, byte-level BPE gets the space before the word, ``Ġ``), so its first piece
may carry the word-boundary marker, or a lone ``▁`` may stand before it. That marker is the space
*before* the word: it is dropped, and only the boundaries strictly inside the word count (a cut
between ``▁`` and the word is not a cut of the word).

Offsets are in bytes of the word's UTF-8, because byte pieces (byte fallback ``<0xE1>``, byte-level
BPE) can cut a character in the middle; such a cut is a piece boundary at no character boundary,
so it never matches a morpheme boundary. Each piece is read back to its bytes: a byte-fallback piece
is its one byte, a byte-level piece goes through GPT-2's byte-to-unicode map, WordPiece's ``##``
and SentencePiece's ``▁`` are markers, not text. An unknown piece shown as the text it covers (tokstudy's
SentencePiece segmenter does that) is that text; one shown as the unknown symbol (``<unk>``, ``[UNK]``)
covers what the others leave; a word whose pieces do not add up to it (two unknown pieces, or a
normaliser that changed its length: NFKC, accents stripped) cannot be placed and is reported as
*unaligned*, never guessed.

>>> from tokstudy.tokenization.context import WordContext
>>> sp = WordContext("sentencepiece", "", "▁")
>>> piece_boundaries("unhappy", ["▁un", "happy"], sp), piece_boundaries("happy", ["▁", "happy"], sp)
((2,), ())
>>> char_to_byte_offsets("née", (1, 2))
(1, 3)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from tokstudy.tokenization.context import METASPACE, WordContext
from tokstudy.tokenization.tiktoken_ import byte_to_unicode

#: unknown pieces that do not show the text they cover
UNKNOWN_SYMBOLS = frozenset({"<unk>", "<UNK>", "[UNK]", "\u2047", "<|unk|>"})


@lru_cache(maxsize=1)
def _unicode_to_byte() -> dict[str, int]:
    return {c: b for b, c in enumerate(byte_to_unicode())}


def piece_bytes(piece: str, context: WordContext, *, is_byte: bool = False, first: bool = False) -> bytes:
    """The text bytes of one piece; a word-start marker becomes the space it stands for."""
    if is_byte and len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        return bytes([int(piece[3:5], 16)])
    if context.family == "byte-level":
        table = _unicode_to_byte()
        if all(c in table for c in piece):
            return bytes(table[c] for c in piece)
        return piece.encode("utf-8")
    if context.marker and not context.marker_starts_word:  # WordPiece: '##' continues a word
        if not first and piece.startswith(context.marker):
            piece = piece[len(context.marker) :]
        return piece.encode("utf-8")
    if context.marker:
        piece = piece.replace(context.marker, " ")
    elif context.family in ("sentencepiece", "metaspace"):
        piece = piece.replace(METASPACE, " ")
    return piece.encode("utf-8")


def piece_boundaries(
    word: str,
    pieces: Sequence[str],
    context: WordContext,
    *,
    unk: Sequence[bool] | None = None,
    byte: Sequence[bool] | None = None,
    unknown_symbols: frozenset[str] = UNKNOWN_SYMBOLS,
) -> tuple[int, ...] | None:
    """Byte offsets of the cuts between ``pieces`` strictly inside ``word``; ``None`` when they cannot be placed.

    ``unk`` flags the unknown pieces; those whose text is one of ``unknown_symbols`` cover an unknown length.
    """
    n = len(pieces)
    unk = unk if unk is not None else [False] * n
    byte = byte if byte is not None else [False] * n
    raw = [
        None if unk[i] and p in unknown_symbols else piece_bytes(p, context, is_byte=byte[i], first=i == 0)
        for i, p in enumerate(pieces)
    ]
    lead = 0  # bytes of the space before the word, at the start of the first pieces
    for r in raw:
        if r is None:
            break
        stripped = r.lstrip(b" ")
        lead += len(r) - len(stripped)
        if stripped:
            break
    size = len(word.encode("utf-8"))
    missing = size + lead - sum(len(r) for r in raw if r is not None)
    unknown = [i for i, r in enumerate(raw) if r is None]
    if len(unknown) > 1 or (unknown and (missing <= 0 or (unknown[0] == 0 and lead == 0))):
        return None
    if not unknown and missing != 0:
        return None
    lengths = [missing if r is None else len(r) for r in raw]
    cuts, at = [], -lead
    for length in lengths[:-1]:
        at += length
        if 0 < at < size and (not cuts or cuts[-1] != at):
            cuts.append(at)
    return tuple(cuts)


def char_to_byte_offsets(word: str, offsets: Sequence[int]) -> tuple[int, ...]:
    """Character offsets inside ``word`` as byte offsets of its UTF-8."""
    starts, at = [0], 0
    for ch in word:
        at += len(ch.encode("utf-8"))
        starts.append(at)
    return tuple(starts[o] for o in offsets)
