"""The columns one tokenizer adds to the segmentation table, and the codes of the entity-position column.

The leaf of :mod:`tokstudy.analysis.table`: the word columns (:mod:`.words`), the table's data
(:mod:`.wordtable`), the export (:mod:`.io`) and the table itself (:mod:`.frame`) all build on these,
and this module imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: codes of the ``position`` column.
OUTSIDE, BEGIN, INSIDE = 0, 1, 2
POSITION_NAMES = ("O", "B", "I")


@dataclass(frozen=True)
class TokenizerColumns:
    """One tokenizer's columns of the table.

    Attributes:
        name: the tokenizer's display name (the key in :attr:`SegmentationTable.tokenizers`).
        kind: ``"sentencepiece"``, ``"hf-tokenizers"``, ...
        vocab_size: number of vocabulary entries.
        boundary_policy: how a lone word-boundary piece was counted (stated in every output).
        type_pieces: pieces of every distinct word (:attr:`SegmentationTable.types`), flat.
        type_offsets: ``int64[n_types + 1]``; type ``t`` has ``type_pieces[o[t]:o[t+1]]``.
        n_pieces: ``int32`` pieces of each row.
        n_unk: ``int32`` unknown pieces of each row.
        type_unk: ``bool`` per piece of :attr:`type_pieces`, ``True`` for an unknown piece
            (``None`` when not known, e.g. a table read back from Parquet).
        type_piece_ids: vocabulary id per piece of :attr:`type_pieces` (``None`` when the
            tokenizer gives none, or read back from Parquet).
        n_byte: ``int32`` byte-fallback pieces (``<0xE1>``) of each row; ``None`` for a tokenizer
            without byte fallback (read as zeros by :meth:`byte_counts`).
        n_partial: ``int32`` *byte pieces* of each row: pieces that are bytes, not whole characters (a
            byte-fallback piece of a multi-byte character, or a byte-level BPE piece holding part of one; see
            :mod:`tokstudy.analysis.table.bytepieces`); ``None`` when not counted (a table read from a Parquet
            file written before they were), read as zeros by :meth:`partial_counts`.
    """

    name: str
    kind: str
    vocab_size: int
    boundary_policy: str
    type_pieces: list[str]
    type_offsets: np.ndarray
    n_pieces: np.ndarray
    n_unk: np.ndarray
    type_unk: np.ndarray | None = None
    type_piece_ids: np.ndarray | None = None
    n_byte: np.ndarray | None = None
    n_partial: np.ndarray | None = None

    def byte_counts(self) -> np.ndarray:
        """Byte-fallback pieces of each row (zeros for a tokenizer without byte fallback)."""
        return self.n_byte if self.n_byte is not None else np.zeros(len(self.n_pieces), np.int32)

    def partial_counts(self) -> np.ndarray:
        """Byte pieces (bytes, not whole characters) of each row (zeros when not counted)."""
        return self.n_partial if self.n_partial is not None else np.zeros(len(self.n_pieces), np.int32)
