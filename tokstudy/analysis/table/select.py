"""Part of a segmentation table, by dataset, without segmenting anything again.

A study builds one table for all its datasets (each tokenizer segments each distinct word once)
and then needs figures of one dataset alone (Table 4 on its primary dataset). Selecting rows
in place would keep the whole table's categories (entity types, tags, languages) and global
numbering; :func:`select_datasets` instead returns exactly the table that
:func:`~tokstudy.analysis.table.segmentation_table` would build from those datasets alone: the
word columns are rebuilt from the selected sentences (cheap: no tokenizer runs) and each
tokenizer's pieces are gathered from the distinct words they were computed for.

>>> from tokstudy.data.types import Dataset, Sentence
>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Chars(Segmenter):
...     name, kind, vocab_size = "chars", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists([list(w) for w in words])
>>> from tokstudy.analysis.table import segmentation_table
>>> a = Dataset((Sentence(("EU", "says"), ("B-ORG", "O")),), "a", "en", "test")
>>> b = Dataset((Sentence(("Ой",), ("O",)),), "b", "ru", "test")
>>> t = segmentation_table([a, b], [Chars()], progress=False)
>>> s = t.select(dataset="b:test")
>>> s.datasets, s.languages, s.types, s.n_pieces("chars").tolist()
(('b:test',), ('ru',), ['Ой'], [2])
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence, TypeVar

import numpy as np

from tokstudy.analysis.table.columns import TokenizerColumns
from tokstudy.analysis.table.words import word_columns
from tokstudy.analysis.table.wordtable import WordTable
from tokstudy.data.types import Dataset, Sentence

#: the class of the table selected from, kept (a SegmentationTable gives a SegmentationTable)
Table = TypeVar("Table", bound=WordTable)


def select_datasets(table: Table, labels: Sequence[str]) -> Table:
    """The table of the datasets named ``labels`` (display labels of ``table.datasets``), in that order.

    Equal, column for column, to the table built from those datasets alone (their display
    labels are recomputed for that set, e.g. ``wikiann:ru:test`` becomes ``wikiann:test`` when
    it is the only wikiann split left). Raises ``KeyError`` naming the known labels.
    """
    unknown = [x for x in labels if x not in table.datasets]
    if unknown or not labels:
        raise KeyError(f"no dataset {unknown or labels!r} in the table; it holds {list(table.datasets)}")
    # the same class as ``table``, with the selected datasets' word columns and no tokenizer yet
    sub = replace(table, tokenizers={}, **word_columns([_dataset(table, table.datasets.index(x)) for x in labels]))
    type_map = _type_map(table, sub)
    return sub.with_tokenizers({n: _gather(table, c, sub, type_map) for n, c in table.tokenizers.items()})


def _dataset(table: WordTable, code: int) -> Dataset:
    """Dataset ``code`` of the table as sentences again (words, tags, ids; source lines are not kept)."""
    name, split, language = table.dataset_keys[code]
    words = np.asarray(table.types, dtype=object)
    tags = np.asarray(table.tags, dtype=object)
    sentences = []
    for s in np.flatnonzero(table.sentence_dataset == code).tolist():
        rows = table.sentence_rows(s)
        labelled = bool(table.labelled[rows.start])
        sentences.append(
            Sentence(
                tuple(words[table.word_type[rows]].tolist()),
                tuple(tags[table.tag_code[rows]].tolist()) if labelled else None,
                sent_id=int(table.sent_id[rows.start]),
            )
        )
    return Dataset(tuple(sentences), name=name, language=language, split=split)


def _type_map(table: WordTable, sub: WordTable) -> np.ndarray:
    """For each distinct word of ``sub``, its index in ``table.types``."""
    index = {w: i for i, w in enumerate(table.types)}
    return np.fromiter((index[w] for w in sub.types), dtype=np.int64, count=len(sub.types))


def _gather(table: WordTable, col: TokenizerColumns, sub: WordTable, old: np.ndarray):
    """``col`` re-indexed to the distinct words of ``sub`` (``old[t]``: word ``t``'s index in ``table``)."""
    counts = np.diff(col.type_offsets)[old]
    offsets = np.zeros(len(old) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    # flat position of every kept piece in the old flat list: its word's old start + its rank in the word
    flat = np.repeat(col.type_offsets[:-1][old] - offsets[:-1], counts) + np.arange(offsets[-1])
    unk_per_type = np.zeros(len(table.types), dtype=np.int32)
    unk_per_type[table.word_type] = col.n_unk
    byte_per_type, partial_per_type = _per_type(table, col.n_byte), _per_type(table, col.n_partial)
    return replace(
        col,
        type_pieces=np.asarray(col.type_pieces, dtype=object)[flat].tolist(),
        type_offsets=offsets,
        n_pieces=counts.astype(np.int32)[sub.word_type],
        n_unk=unk_per_type[old][sub.word_type],
        type_unk=None if col.type_unk is None else col.type_unk[flat],
        n_byte=None if byte_per_type is None else byte_per_type[old][sub.word_type],
        n_partial=None if partial_per_type is None else partial_per_type[old][sub.word_type],
    )


def _per_type(table: WordTable, per_row: np.ndarray | None) -> np.ndarray | None:
    """A per-row count of ``table`` as one value per distinct word (every row of a word has the same)."""
    if per_row is None:
        return None
    out = np.zeros(len(table.types), dtype=np.int32)
    out[table.word_type] = per_row
    return out
