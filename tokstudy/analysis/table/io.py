"""Export and import of the segmentation table: rows, Arrow, CSV, Parquet.

The Parquet file is self-describing: one row per word with ``pieces:<tokenizer>``
list columns, and the tokenizers' kind, vocabulary size and boundary policy in the
schema metadata, so :meth:`SegmentationTable.from_parquet` rebuilds an equal table. CSV joins each
word's pieces with a single space (SentencePiece pieces hold no spaces; ``▁`` marks
word starts).

>>> # t.to_parquet("seg.parquet"); SegmentationTable.from_parquet("seg.parquet")
"""

from __future__ import annotations

import json
import os
from typing import Sequence

import numpy as np

from tokstudy.analysis.table.columns import POSITION_NAMES, TokenizerColumns
from tokstudy.analysis.table.words import word_columns
from tokstudy.analysis.table.wordtable import WordTable
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError
from tokstudy.fileio import atomic_file

_META_KEY = b"tokstudy.segmentation_table"


def _word_columns(t: WordTable) -> dict[str, list]:
    etypes = t.entity_types
    names = np.asarray(t.dataset_names, dtype=object)
    return {
        "dataset": names[t.dataset_code].tolist(),
        "split": np.asarray(t.splits, dtype=object)[t.split_code].tolist(),
        "language": np.asarray(t.languages, dtype=object)[t.language_code].tolist(),
        "sentence": t.sentence.tolist(),
        "sent_id": t.sent_id.tolist(),
        "word_index": t.word_index.tolist(),
        "word": t.words,
        "tag": t.tag_of_rows(),
        "entity_type": [etypes[c] if c >= 0 else "" for c in t.entity_type_code.tolist()],
        "inside_entity": t.inside.tolist(),
        "entity_position": [POSITION_NAMES[p] for p in t.position.tolist()],
        "entity_id": t.entity_id.tolist(),
    }


def to_rows(t: WordTable, tokenizers: Sequence[str] | None = None) -> list[dict]:
    """One dict per word: the word columns plus ``pieces``/``n_pieces``/``n_unk`` per tokenizer."""
    cols = _word_columns(t)
    names = list(tokenizers) if tokenizers is not None else t.tokenizer_names
    for name in names:
        cols[f"pieces:{name}"] = t.piece_lists(name)
        cols[f"n_pieces:{name}"] = t.n_pieces(name).tolist()
        cols[f"n_unk:{name}"] = t.n_unk(name).tolist()
    keys = list(cols)
    return [dict(zip(keys, vals)) for vals in zip(*(cols[k] for k in keys))]


def _metadata(t: WordTable) -> dict:
    return {
        "datasets": list(t.datasets),
        "dataset_keys": [[n, sp, lang] for n, sp, lang in t.dataset_keys],
        "tokenizers": [
            {"name": c.name, "kind": c.kind, "vocab_size": c.vocab_size, "boundary_policy": c.boundary_policy}
            for c in t.tokenizers.values()
        ],
    }


def to_arrow(t: WordTable, *, joined_pieces: bool = False):
    """A ``pyarrow.Table`` (pieces as list columns, or space-joined strings)."""
    import pyarrow as pa  # deferred: ~70 ms, only to write or read a table file

    cols = _word_columns(t)
    arrays = {k: pa.array(v) for k, v in cols.items()}
    for name, c in t.tokenizers.items():
        # pieces: a list array over the distinct words, taken per row (no Python per-row loop)
        o = c.type_offsets
        type_list = pa.ListArray.from_arrays(
            pa.array(o, pa.int64()).cast(pa.int32()) if o[-1] < 2**31 else pa.array(o),
            pa.array(c.type_pieces, pa.string()),
        )
        per_row = type_list.take(pa.array(t.word_type))
        if joined_pieces:
            import pyarrow.compute as pc  # deferred: as pyarrow above

            per_row = pc.binary_join(per_row, " ")
        arrays[f"pieces:{name}"] = per_row
        arrays[f"n_pieces:{name}"] = pa.array(c.n_pieces)
        arrays[f"n_unk:{name}"] = pa.array(c.n_unk)
        if c.n_byte is not None:
            arrays[f"n_byte:{name}"] = pa.array(c.n_byte)
        if c.n_partial is not None:
            arrays[f"n_partial:{name}"] = pa.array(c.n_partial)
    table = pa.table(arrays)
    return table.replace_schema_metadata({_META_KEY: json.dumps(_metadata(t)).encode()})


def to_csv(t: WordTable, path: str | os.PathLike) -> None:
    """Write the table as CSV (pieces space-joined), atomically."""
    import pyarrow.csv as pacsv  # deferred: pyarrow (~70 ms), only to write a file

    _atomic(path, lambda tmp: pacsv.write_csv(to_arrow(t, joined_pieces=True), tmp))


def to_parquet(t: WordTable, path: str | os.PathLike) -> None:
    """Write the table as Parquet (self-describing; see the module docstring), atomically."""
    import pyarrow.parquet as pq  # deferred: pyarrow (~70 ms), only to write a file

    _atomic(path, lambda tmp: pq.write_table(to_arrow(t), tmp))


def read_parquet(path: str | os.PathLike) -> tuple[dict[str, object], dict[str, TokenizerColumns]]:
    """The word columns and the tokenizers' columns of a table written by :func:`to_parquet`
    (:meth:`SegmentationTable.from_parquet <tokstudy.analysis.table.frame.SegmentationTable.from_parquet>`
    makes the table of them)."""
    import pyarrow.parquet as pq  # deferred: pyarrow (~70 ms), only to read a file

    pt = pq.read_table(path)
    raw = (pt.schema.metadata or {}).get(_META_KEY)
    if raw is None:
        raise DataFormatError(
            "not a tokstudy segmentation table (no tokstudy metadata in the Parquet schema)", path=path
        )
    meta = json.loads(raw)
    d = {k: pt.column(k).to_pylist() for k in ("dataset", "split", "language", "sentence", "sent_id", "word", "tag")}
    # rebuild the datasets sentence by sentence, then the word columns exactly as segmentation_table does
    sentence = np.asarray(d["sentence"], dtype=np.int64)
    bounds = np.flatnonzero(np.diff(sentence)) + 1
    starts = np.concatenate([[0], bounds]).tolist()
    ends = np.concatenate([bounds, [len(sentence)]]).tolist()
    by_ds: dict[tuple, list] = {}
    for a, b in zip(starts, ends):
        key = (d["dataset"][a], d["split"][a], d["language"][a])
        tags = d["tag"][a:b]
        by_ds.setdefault(key, []).append(
            Sentence(tuple(d["word"][a:b]), None if tags[0] == "-" else tuple(tags), sent_id=d["sent_id"][a])
        )
    datasets = [Dataset(tuple(by_ds[tuple(k)]), name=k[0], split=k[1], language=k[2]) for k in meta["dataset_keys"]]
    words = word_columns(datasets)
    word_type, n_words = words["word_type"], len(words["word_type"])
    cols = {}
    for tk in meta["tokenizers"]:
        name = tk["name"]
        pieces = pt.column(f"pieces:{name}").combine_chunks()
        # pieces per distinct word: take each type's first row
        first_row = np.full(len(words["types"]), -1, np.int64)
        first_row[word_type[::-1]] = np.arange(n_words - 1, -1, -1)
        per_type = pieces.take(first_row).to_pylist()
        counts = np.fromiter((len(p) for p in per_type), np.int64, len(per_type))
        offsets = np.zeros(len(per_type) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        cols[name] = TokenizerColumns(
            name=name,
            kind=tk["kind"],
            vocab_size=tk["vocab_size"],
            boundary_policy=tk["boundary_policy"],
            type_pieces=[p for ps in per_type for p in ps],
            type_offsets=offsets,
            n_pieces=pt.column(f"n_pieces:{name}").to_numpy().astype(np.int32),
            n_unk=pt.column(f"n_unk:{name}").to_numpy().astype(np.int32),
            n_byte=(
                pt.column(f"n_byte:{name}").to_numpy().astype(np.int32) if f"n_byte:{name}" in pt.column_names else None
            ),
            n_partial=(
                pt.column(f"n_partial:{name}").to_numpy().astype(np.int32)
                if f"n_partial:{name}" in pt.column_names
                else None
            ),
        )
    return words, cols


def _atomic(path: str | os.PathLike, write) -> None:
    with atomic_file(path) as tmp:
        write(str(tmp))
