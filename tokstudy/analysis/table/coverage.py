"""Unknown pieces per dataset: a tokenizer that does not cover a script must not look clean.

A tokenizer that covers none of a dataset's script turns every word into ``▁`` +
``<unk>`` (two pieces) or a single ``[UNK]``: its fertility and continued-word share then
look ordinary (even 100 % of entity words "continued"), and nothing says they describe
unknown pieces. :func:`unknown_share` measures it per dataset and tokenizer, and
:func:`coverage_warnings` says, above :data:`THRESHOLD`, which script or characters were
not covered. :func:`~tokstudy.analysis.table.segmentation_table` emits them as
:class:`UnknownPiecesWarning`.

A tokenizer with byte fallback (SentencePiece or Hugging Face BPE) has no unknown pieces: it
spells a character it lacks as its UTF-8 bytes, ``<0xE1>`` ``<0x88>`` ``<0x9B>``, so Amharic under
a Latin vocabulary shows about ten pieces a word and 0 % unknown pieces. :func:`byte_fallback_share`
counts those pieces per dataset and :func:`byte_fallback_warnings` names, above
:data:`BYTE_THRESHOLD`, the script they spell; they are emitted as :class:`ByteFallbackWarning`.
A byte-level BPE spells such text as bytes too, without flagging anything: :mod:`.bytepieces` counts both
mechanisms as *byte pieces* and holds :func:`~.bytepieces.coverage_notes`, every such warning for a report.

>>> char_script("ა"), char_script("Ж"), char_script("中"), char_script("٣")
('GEORGIAN', 'CYRILLIC', 'CJK', 'ARABIC-INDIC')
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import numpy as np

#: share of a dataset's pieces that are unknown above which a warning is given (1 %).
THRESHOLD = 0.01

_UNK_TEXTS = {"<unk>", "[UNK]", "<UNK>", "[unk]"}


class UnknownPiecesWarning(UserWarning):
    """More than :data:`THRESHOLD` of a dataset's pieces are unknown to a tokenizer."""


#: share of a dataset's pieces that are byte-fallback pieces above which a warning is given (1 %).
BYTE_THRESHOLD = 0.01


class ByteFallbackWarning(UnknownPiecesWarning):
    """More than :data:`BYTE_THRESHOLD` of a dataset's pieces are byte-fallback pieces (``<0xE1>``).

    A kind of :class:`UnknownPiecesWarning` (the vocabulary lacks the text), so whatever shows
    or filters those shows or filters these.
    """


@dataclass(frozen=True)
class UnknownShare:
    """Unknown pieces of one dataset under one tokenizer.

    Attributes:
        dataset: the dataset's display label.
        tokenizer: the tokenizer's name.
        n_pieces: all pieces of the dataset's words.
        n_unk: unknown pieces among them.
        top_chars: the most frequent characters inside unknown pieces, with their counts.
        scripts: the scripts of the unknown letters (up to three, each at least a tenth of them),
            most frequent first.
    """

    dataset: str
    tokenizer: str
    n_pieces: int
    n_unk: int
    top_chars: tuple[tuple[str, int], ...]
    scripts: tuple[str, ...]

    @property
    def share(self) -> float:
        return self.n_unk / self.n_pieces if self.n_pieces else 0.0

    def message(self) -> str:
        chars = " ".join(f"{c!r}" for c, _ in self.top_chars)
        script = ""
        if self.scripts:
            script = f" ({', '.join(self.scripts)} script{'s' if len(self.scripts) > 1 else ''})"
        return (
            f"tokenizer {self.tokenizer!r} on dataset {self.dataset!r}: {self.share:.1%} of the pieces "
            f"({self.n_unk:,} of {self.n_pieces:,}) are unknown pieces; most frequent unknown characters: "
            f"{chars}{script}. The tokenizer does not cover this text, so its piece counts describe unknown "
            f"pieces, not segmentation."
        )


def char_script(ch: str) -> str:
    """The script of a character, from its Unicode name (``"GEORGIAN LETTER AN"`` -> ``"GEORGIAN"``)."""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "UNNAMED"
    first = name.split(" ")[0]
    return first


def unknown_share(table, tokenizer: str, *, top: int = 8, detail_above: float = 0.0) -> list[UnknownShare]:
    """Per dataset of ``table``, the unknown pieces of ``tokenizer`` and the characters they hold.

    Characters are collected only for datasets whose share exceeds ``detail_above``.

    The characters of an unknown piece are the text it covers where the tokenizer reports it
    (SentencePiece shows ``▁ქართული``), else the word's characters (a WordPiece ``[UNK]``
    stands for the whole word).
    """
    col = table.column(tokenizer)
    out = []
    n_unk_rows = col.n_unk.astype(np.int64)
    n_pieces_rows = col.n_pieces.astype(np.int64)
    n_ds = len(table.datasets)
    pieces_by_ds = np.bincount(table.dataset_code, weights=n_pieces_rows, minlength=n_ds).astype(np.int64)
    unk_by_ds = np.bincount(table.dataset_code, weights=n_unk_rows, minlength=n_ds).astype(np.int64)
    for d, label in enumerate(table.datasets):
        if not unk_by_ds[d] or unk_by_ds[d] <= detail_above * pieces_by_ds[d]:
            out.append(UnknownShare(label, tokenizer, int(pieces_by_ds[d]), int(unk_by_ds[d]), (), ()))
            continue
        rows = np.flatnonzero((table.dataset_code == d) & (n_unk_rows > 0))
        types, freq = np.unique(table.word_type[rows], return_counts=True)
        chars: Counter = Counter()
        o = col.type_offsets
        for t, f in zip(types.tolist(), freq.tolist()):
            pieces = col.type_pieces[o[t] : o[t + 1]]
            flags = col.type_unk[o[t] : o[t + 1]] if col.type_unk is not None else [True] * len(pieces)
            text = "".join(p for p, u in zip(pieces, flags) if u and p not in _UNK_TEXTS)
            if not text:
                text = table.types[t]
            for ch in text.replace("\u2581", ""):
                if not ch.isspace():
                    chars[ch] += f
        top_chars = tuple(chars.most_common(top))
        out.append(
            UnknownShare(label, tokenizer, int(pieces_by_ds[d]), int(unk_by_ds[d]), top_chars, main_scripts(chars))
        )
    return out


def main_scripts(chars: Counter) -> tuple[str, ...]:
    """The scripts of the letters among ``chars`` (up to three, each at least a tenth of them), most frequent first."""
    scripts: Counter = Counter()
    for ch, n in chars.items():
        if unicodedata.category(ch).startswith(("L", "M")):  # letters and marks carry the script
            scripts[char_script(ch)] += n
    total = sum(scripts.values())
    return tuple(s for s, n in scripts.most_common(3) if n >= 0.1 * total)


def coverage_warnings(table, *, threshold: float = THRESHOLD) -> list[UnknownShare]:
    """Every (dataset, tokenizer) of ``table`` whose unknown-piece share exceeds ``threshold``."""
    return [
        s for t in table.tokenizer_names for s in unknown_share(table, t, detail_above=threshold) if s.share > threshold
    ]


@dataclass(frozen=True)
class ByteFallbackShare:
    """Byte-fallback pieces of one dataset under one tokenizer (fields as :class:`UnknownShare`'s).

    ``top_chars`` are the characters the byte pieces spell (their UTF-8 bytes decoded).
    """

    dataset: str
    tokenizer: str
    n_pieces: int
    n_byte: int
    top_chars: tuple[tuple[str, int], ...]
    scripts: tuple[str, ...]

    @property
    def share(self) -> float:
        return self.n_byte / self.n_pieces if self.n_pieces else 0.0

    def message(self) -> str:
        chars = " ".join(f"{c!r}" for c, _ in self.top_chars)
        script = f" ({', '.join(self.scripts)} script{'s' if len(self.scripts) > 1 else ''})" if self.scripts else ""
        return (
            f"tokenizer {self.tokenizer!r} on dataset {self.dataset!r}: {self.share:.1%} of the pieces "
            f"({self.n_byte:,} of {self.n_pieces:,}) are byte-fallback pieces (<0x..>), UTF-8 bytes of characters "
            f"the vocabulary lacks: {chars}{script}. Its piece counts there measure UTF-8 bytes, not segmentation."
        )


_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def byte_fallback_share(table, tokenizer: str, *, top: int = 8, detail_above: float = 0.0) -> list[ByteFallbackShare]:
    """Per dataset of ``table``, the byte-fallback pieces of ``tokenizer`` and the characters they spell.

    Characters are collected only for datasets whose share exceeds ``detail_above``.
    """
    col = table.column(tokenizer)
    n_ds = len(table.datasets)
    n_byte_rows = col.byte_counts().astype(np.int64)
    pieces_by_ds = np.bincount(table.dataset_code, weights=col.n_pieces.astype(np.int64), minlength=n_ds)
    byte_by_ds = np.bincount(table.dataset_code, weights=n_byte_rows, minlength=n_ds).astype(np.int64)
    out = []
    for d, label in enumerate(table.datasets):
        n_pieces, n_byte = int(pieces_by_ds[d]), int(byte_by_ds[d])
        if not n_byte or n_byte <= detail_above * n_pieces:
            out.append(ByteFallbackShare(label, tokenizer, n_pieces, n_byte, (), ()))
            continue
        rows = np.flatnonzero((table.dataset_code == d) & (n_byte_rows > 0))
        types, freq = np.unique(table.word_type[rows], return_counts=True)
        chars: Counter = Counter()
        o = col.type_offsets
        for t, f in zip(types.tolist(), freq.tolist()):
            spelled = bytearray()
            for piece in col.type_pieces[o[t] : o[t + 1]]:
                m = _BYTE_PIECE.fullmatch(piece)
                if m:
                    spelled.append(int(m.group(1), 16))
                else:
                    spelled += b" "
            for ch in spelled.decode("utf-8", errors="replace"):
                if not ch.isspace() and ch != "\ufffd":
                    chars[ch] += f
        out.append(
            ByteFallbackShare(label, tokenizer, n_pieces, n_byte, tuple(chars.most_common(top)), main_scripts(chars))
        )
    return out


def byte_fallback_warnings(table, *, threshold: float = BYTE_THRESHOLD) -> list[ByteFallbackShare]:
    """Every (dataset, tokenizer) of ``table`` whose byte-fallback share exceeds ``threshold``."""
    return [
        s
        for t in table.tokenizer_names
        for s in byte_fallback_share(table, t, detail_above=threshold)
        if s.share > threshold
    ]
