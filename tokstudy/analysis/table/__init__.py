"""The per-word segmentation table: one row per word, every statistic derives from it.

Why numpy columns (and not pandas or pyarrow in the core):

* every statistic is a masked sum grouped by sentence, entity type, language, ...;
  ``np.bincount(group, weights=...)`` does that in one vectorised pass, and the
  bootstrap resamples per-sentence sums with a matrix product: numpy is all we need;
* pieces are kept the way an Arrow list array keeps them, one flat list plus
  offsets, but per *distinct word*: a corpus repeats words (CoNLL-2003 has ~300k
  words, ~30k distinct), each word is segmented independently (the
  :class:`~tokstudy.tokenization.base.Segmenter` contract), so each tokenizer is
  called ONCE, vectorised, on the distinct words of all datasets together and
  rows point to their word type. This is exact, and it is what makes the table
  cheaper than the raw batch ``encode`` of every word;
* categorical columns (dataset, language, split, tag, entity type) are small
  integer codes plus a category list, so a group-by is a ``bincount``;
* pyarrow is used only at the edges (Parquet/CSV export and import, in
  :mod:`tokstudy.analysis.table.io`); pandas is never needed.

>>> from tokstudy.data.types import Dataset, Sentence
>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Halves(Segmenter):
...     name, kind, vocab_size = "halves", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists(
...             [[w[: (len(w) + 1) // 2], w[(len(w) + 1) // 2 :]] if len(w) > 1 else [w] for w in words]
...         )
>>> ds = Dataset((Sentence(("EU", "rejects", "a"), ("B-ORG", "O", "O")),), name="demo", language="en", split="test")
>>> t = segmentation_table([ds], [Halves()], progress=False)
>>> t.n_pieces("halves").tolist(), t.pieces_of("halves", 1)
([2, 2, 1], ['reje', 'cts'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from tokstudy.data.types import Dataset
from tokstudy.errors import AlignmentError, DataFormatError
from tokstudy.tokenization.base import Segmenter

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

    def byte_counts(self) -> np.ndarray:
        """Byte-fallback pieces of each row (zeros for a tokenizer without byte fallback)."""
        return self.n_byte if self.n_byte is not None else np.zeros(len(self.n_pieces), np.int32)


@dataclass(frozen=True)
class SegmentationTable:
    """Columnar per-word table (see the module docstring for the layout and why).

    Row ``r`` is one word. Categorical columns are integer codes into the matching
    category tuple (``dataset_code`` into ``datasets`` ...). ``labelled`` is
    ``False`` for words of unlabelled sentences; they count in "all" statistics
    but in neither "NE" nor "non-NE".
    """

    datasets: tuple[str, ...]  # display labels, "name:split" ("name:language:split" when needed)
    dataset_keys: tuple[tuple[str, str, str], ...]  # (name, split, language) of each dataset
    languages: tuple[str, ...]
    splits: tuple[str, ...]
    dataset_code: np.ndarray  # int16, per row
    language_code: np.ndarray  # int16, per row
    split_code: np.ndarray  # int16, per row
    sentence: np.ndarray  # int64 global sentence index (0..n_sentences-1), per row
    sent_id: np.ndarray  # int64 Sentence.sent_id inside its dataset, per row
    word_index: np.ndarray  # int32 position of the word in its sentence
    types: list[str]  # distinct words
    word_type: np.ndarray  # int64 index into ``types``, per row
    tags: tuple[str, ...]  # tag categories ("O" first)
    tag_code: np.ndarray  # int16, per row
    entity_types: tuple[str, ...]
    entity_type_code: np.ndarray  # int16, -1 outside entities
    position: np.ndarray  # int8: OUTSIDE / BEGIN / INSIDE
    entity_id: np.ndarray  # int64 global entity index, -1 outside
    labelled: np.ndarray  # bool
    sentence_offsets: np.ndarray  # int64[n_sentences + 1]: rows of sentence s
    sentence_dataset: np.ndarray  # int16 dataset code of each sentence
    tokenizers: dict[str, TokenizerColumns] = field(default_factory=dict)

    @property
    def dataset_names(self) -> tuple[str, ...]:
        return tuple(k[0] for k in self.dataset_keys)

    # ---- sizes -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.word_type)

    @property
    def n_sentences(self) -> int:
        return len(self.sentence_offsets) - 1

    @property
    def n_entities(self) -> int:
        return int(self.entity_id.max()) + 1 if len(self.entity_id) else 0

    @property
    def tokenizer_names(self) -> list[str]:
        return list(self.tokenizers)

    # ---- derived columns -----------------------------------------------------
    @property
    def inside(self) -> np.ndarray:
        """``True`` for words inside a gold entity."""
        return self.position != OUTSIDE

    @property
    def words(self) -> list[str]:
        """The word of each row (materialised on demand)."""
        types = self.types
        return [types[t] for t in self.word_type.tolist()]

    def word(self, row: int) -> str:
        return self.types[int(self.word_type[row])]

    def tag_of_rows(self) -> list[str]:
        tags = self.tags
        return [tags[c] for c in self.tag_code.tolist()]

    def column(self, tokenizer: str | None) -> TokenizerColumns:
        """The columns of ``tokenizer`` (the only one when ``None`` and there is one)."""
        if tokenizer is None:
            if len(self.tokenizers) != 1:
                raise KeyError(f"the table has tokenizers {self.tokenizer_names}; name one")
            return next(iter(self.tokenizers.values()))
        try:
            return self.tokenizers[tokenizer]
        except KeyError:
            raise KeyError(f"no tokenizer {tokenizer!r} in the table; it has {self.tokenizer_names}") from None

    def n_pieces(self, tokenizer: str | None = None) -> np.ndarray:
        return self.column(tokenizer).n_pieces

    def n_unk(self, tokenizer: str | None = None) -> np.ndarray:
        return self.column(tokenizer).n_unk

    def boundary_policy(self, tokenizer: str | None = None) -> str:
        return self.column(tokenizer).boundary_policy

    def pieces_of(self, tokenizer: str | None, row: int) -> list[str]:
        col = self.column(tokenizer)
        t = int(self.word_type[row])
        return col.type_pieces[col.type_offsets[t] : col.type_offsets[t + 1]]

    def piece_lists(self, tokenizer: str | None = None) -> list[list[str]]:
        """Per-row piece lists (materialised; one list per word)."""
        col = self.column(tokenizer)
        o, p = col.type_offsets.tolist(), col.type_pieces
        per_type = [p[o[t] : o[t + 1]] for t in range(len(o) - 1)]
        return [per_type[t] for t in self.word_type.tolist()]

    def sentence_rows(self, sentence: int) -> slice:
        """Rows of global sentence ``sentence``."""
        return slice(int(self.sentence_offsets[sentence]), int(self.sentence_offsets[sentence + 1]))

    def find_sentence(self, dataset: str, sent_id: int) -> int:
        """Global sentence index of ``sent_id`` in ``dataset``; ``KeyError`` if absent."""
        d = self.datasets.index(dataset)
        starts = self.sentence_offsets[:-1]
        hits = np.flatnonzero(
            (self.sentence_dataset == d) & (self.sent_id[np.minimum(starts, len(self) - 1)] == sent_id)
        )
        if not len(hits):
            raise KeyError(f"no sentence {sent_id} in dataset {dataset!r}")
        return int(hits[0])

    # ---- export (implemented in table_io to keep this file about the data) ----
    def to_rows(self, tokenizers: Sequence[str] | None = None) -> list[dict]:
        from tokstudy.analysis.table.io import to_rows

        return to_rows(self, tokenizers)

    def to_arrow(self):
        from tokstudy.analysis.table.io import to_arrow

        return to_arrow(self)

    def to_csv(self, path) -> None:
        from tokstudy.analysis.table.io import to_csv

        to_csv(self, path)

    def to_parquet(self, path) -> None:
        from tokstudy.analysis.table.io import to_parquet

        to_parquet(self, path)

    @classmethod
    def from_parquet(cls, path) -> "SegmentationTable":
        from tokstudy.analysis.table.io import from_parquet

        return from_parquet(path)

    def select(self, *, dataset: str | Sequence[str]) -> "SegmentationTable":
        """The rows of one dataset (or several, by display label), equal to the table built from them alone.

        Nothing is segmented again: the tokenizers' columns are gathered from this table
        (:func:`~tokstudy.analysis.table.select.select_datasets`).
        """
        from tokstudy.analysis.table.select import select_datasets

        return select_datasets(self, [dataset] if isinstance(dataset, str) else list(dataset))

    def with_tokenizers(self, extra: dict[str, TokenizerColumns]) -> "SegmentationTable":
        """A copy with more tokenizer columns (the word columns are shared, not copied)."""
        from dataclasses import replace

        return replace(self, tokenizers={**self.tokenizers, **extra})


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
    :class:`~tokstudy.analysis.table.coverage.ByteFallbackWarning` naming the script they spell.
    """
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    if isinstance(segmenters, Segmenter):
        segmenters = [segmenters]
    datasets, segmenters = list(datasets), list(segmenters)
    if not datasets:
        raise DataFormatError("no datasets given; expected at least one")
    from tokstudy.analysis.table.words import build_word_columns

    table = build_word_columns(datasets)
    seen: set[str] = set()
    for seg in segmenters:
        if seg.name in seen:
            raise ValueError(f"two tokenizers are named {seg.name!r}; give them distinct names")
        seen.add(seg.name)
    cols = {}
    it = segmenters
    if progress and segmenters:
        from tqdm.auto import tqdm

        it = tqdm(segmenters, desc="segmenting", unit="tokenizer")
    for seg in it:
        cols[seg.name] = tokenizer_columns(table, seg)
    table = table.with_tokenizers(cols)
    _warn_unknown_pieces(table)
    return table


def _warn_unknown_pieces(table: SegmentationTable) -> None:
    import warnings

    from tokstudy.analysis.table.coverage import (
        ByteFallbackWarning,
        UnknownPiecesWarning,
        byte_fallback_warnings,
        coverage_warnings,
    )

    for share in coverage_warnings(table):
        warnings.warn(share.message(), UnknownPiecesWarning, stacklevel=3)
    for share in byte_fallback_warnings(table):
        warnings.warn(share.message(), ByteFallbackWarning, stacklevel=3)


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
    )


def _per_type(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``int32`` count of flagged pieces of each word of a segmentation (flags one per piece)."""
    counts = np.diff(offsets)
    if not len(flags):
        return np.zeros(len(counts), np.int32)
    # reduceat gives the value at the start index for empty ranges: zero them
    return np.where(counts > 0, np.add.reduceat(flags.astype(np.int32), offsets[:-1]), 0).astype(np.int32)
