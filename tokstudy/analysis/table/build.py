"""Building the segmentation table: the word columns, then each tokenizer's columns, then coverage warnings.

Each tokenizer segments the distinct words of all datasets once (one vectorised call), and rows
point to their word type (see :mod:`tokstudy.analysis.table.frame` for the layout and why).
"""

from __future__ import annotations

import warnings
from typing import Iterable

import numpy as np

from tokstudy.analysis.table.bytepieces import BytePiecesWarning, byte_piece_flags, byte_piece_warnings
from tokstudy.analysis.table.columns import TokenizerColumns
from tokstudy.analysis.table.coverage import (
    ByteFallbackWarning,
    UnknownPiecesWarning,
    byte_fallback_warnings,
    coverage_warnings,
)
from tokstudy.analysis.table.frame import SegmentationTable, build_word_columns
from tokstudy.data.types import Dataset
from tokstudy.errors import AlignmentError, DataFormatError
from tokstudy.tokenization.base import Segmenter


def segmentation_table(
    datasets: Dataset | Iterable[Dataset],
    segmenters: Segmenter | Iterable[Segmenter],
    *,
    progress: bool = True,
) -> SegmentationTable:
    """Build the table for every word of ``datasets`` under every segmenter.

    Each segmenter's :meth:`~tokstudy.tokenization.base.Segmenter.segment` is called
    once, on the distinct words of all datasets. Tags must be IOB2 (``O``, ``B-X``,
    ``I-X``); anything else raises :class:`~tokstudy.errors.TagSchemeError` naming
    the dataset, sentence, word and source line. A dataset without words raises
    :class:`~tokstudy.errors.DataFormatError`. A dataset of which more than 1 % of the
    pieces are unknown to a tokenizer gives an
    :class:`~tokstudy.analysis.table.coverage.UnknownPiecesWarning` naming the uncovered script; one of
    which more than 1 % are byte-fallback pieces (``<0xE1>``), a
    :class:`~tokstudy.analysis.table.coverage.ByteFallbackWarning` naming the script they spell; one of which
    more than 10 % are otherwise bytes, not whole characters (a byte-level BPE's pieces of part of a
    character), a :class:`~tokstudy.analysis.table.bytepieces.BytePiecesWarning`.
    """
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    if isinstance(segmenters, Segmenter):
        segmenters = [segmenters]
    datasets, segmenters = list(datasets), list(segmenters)
    if not datasets:
        raise DataFormatError("no datasets given; expected at least one")
    table = build_word_columns(datasets)
    seen: set[str] = set()
    for seg in segmenters:
        if seg.name in seen:
            raise ValueError(f"two tokenizers are named {seg.name!r}; give them distinct names")
        seen.add(seg.name)
    cols = {}
    it = segmenters
    if progress and segmenters:
        from tqdm.auto import tqdm  # deferred: ~50 ms (asyncio), only when a bar is shown

        it = tqdm(segmenters, desc="segmenting", unit="tokenizer")
    for seg in it:
        cols[seg.name] = tokenizer_columns(table, seg)
    table = table.with_tokenizers(cols)
    _warn_unknown_pieces(table)
    return table


def _warn_unknown_pieces(table: SegmentationTable) -> None:
    for share in coverage_warnings(table):
        warnings.warn(share.message(), UnknownPiecesWarning, stacklevel=3)
    for share in byte_fallback_warnings(table):
        warnings.warn(share.message(), ByteFallbackWarning, stacklevel=3)
    for share in byte_piece_warnings(table):
        warnings.warn(share.message(), BytePiecesWarning, stacklevel=3)


def tokenizer_columns(table: SegmentationTable, seg: Segmenter) -> TokenizerColumns:
    """Segment the table's distinct words with ``seg`` (one vectorised call) and map to rows."""
    result = seg.segment(table.types)
    if len(result) != len(table.types):
        raise AlignmentError(
            f"tokenizer {seg.name!r} returned {len(result)} segmentations for {len(table.types)} words"
        )
    counts = np.diff(result.offsets).astype(np.int32)
    unk_per_type = _per_type(result.unk, result.offsets)
    byte_per_type = _per_type(result.byte, result.offsets) if result.byte is not None else None
    byte_level = getattr(seg, "context", None) is not None and seg.context.family == "byte-level"
    partial = byte_piece_flags(result.pieces, byte_level=byte_level, fallback=result.byte)
    partial_per_type = _per_type(partial, result.offsets)
    return TokenizerColumns(
        name=seg.name,
        kind=getattr(seg, "kind", "unknown"),
        vocab_size=int(getattr(seg, "vocab_size", 0) or 0),
        boundary_policy=seg.describe_boundary_policy(),
        type_pieces=list(result.pieces),
        type_offsets=np.asarray(result.offsets, dtype=np.int64),
        n_pieces=counts[table.word_type],
        n_unk=unk_per_type[table.word_type],
        type_unk=np.asarray(result.unk, dtype=bool),
        type_piece_ids=result.ids,
        n_byte=None if byte_per_type is None else byte_per_type[table.word_type],
        n_partial=partial_per_type[table.word_type],
    )


def _per_type(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``int32`` count of flagged pieces of each word of a segmentation (flags one per piece)."""
    counts = np.diff(offsets)
    if not len(flags):
        return np.zeros(len(counts), np.int32)
    # reduceat gives the value at the start index for empty ranges: zero them
    return np.where(counts > 0, np.add.reduceat(flags.astype(np.int32), offsets[:-1]), 0).astype(np.int32)
