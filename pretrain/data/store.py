"""The example store: pre-training examples in memory-mapped ``.npy`` files, written once, read many times.

A store is a directory::

    meta.json                 format, version, N, L, P, vocab size, special ids, task, tokenizer hash,
                              the PrepareConfig, statistics, "complete": true
    input_ids.npy             int32 [N, L]  [CLS] A [SEP] B [SEP], pad after; masked tokens already replaced
    lengths.npy               int16 [N]     tokens incl. [CLS] and both [SEP]
    segment_b_start.npy       int16 [N]     index of B's first token (token_type_ids = 1 from there)
    sentence_order_label.npy  int8  [N]     SOP: 1 = A and B swapped; NSP: 1 = B is random
    mlm_positions.npy         int16 [N, P]  positions of masked tokens, -1 padded
    mlm_labels.npy            int32 [N, P]  their original ids, -100 padded

Masking is static (as ALBERT's ``create_pretraining_data.py``): the trainer reads the
masked inputs and the labels as they are. The writer streams rows to raw files in the
temporary directory and turns them into ``.npy`` (via ``open_memmap``) in bounded blocks
on :meth:`ExampleStoreWriter.close`, so memory never grows with the corpus; the directory
only appears under its final name, with ``"complete": true``, once everything is on disk.

>>> import numpy as np, tempfile, os
>>> d = os.path.join(tempfile.mkdtemp(), "store")
>>> w = ExampleStoreWriter(d, max_seq_length=8, max_predictions=2,
...     meta={"vocab_size": 10, "special_ids": {"pad": 0, "unk": 1, "cls": 2, "sep": 3, "mask": 4}, "task": "sop"})
>>> w.append_batch(input_ids=np.array([[2, 5, 3, 4, 3, 0, 0, 0]]), lengths=np.array([5]),
...     segment_b_start=np.array([3]), sentence_order_label=np.array([1]),
...     mlm_positions=np.array([[3, -1]]), mlm_labels=np.array([[6, -100]]))
>>> _ = w.close()
>>> s = ExampleStore(d); b = s.get_batch(np.array([0]))
>>> len(s), b["input_ids"].tolist(), b["token_type_ids"].tolist(), b["mlm_positions"].tolist()
(1, [[2, 5, 3, 4, 3]], [[0, 0, 0, 1, 1]], [[3]])
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tokstudy.errors import DataFormatError
from tokstudy.fileio import replace_folder, staging_folder

FORMAT = "tokstudy-albert-examples"
VERSION = 1
META_FILE = "meta.json"
PAD_POSITION = -1
PAD_LABEL = -100

#: name -> (dtype, whether it has a second axis of length L ("L"), P ("P") or none (None))
ARRAYS: dict[str, tuple[np.dtype, str | None]] = {
    "input_ids": (np.dtype(np.int32), "L"),
    "lengths": (np.dtype(np.int16), None),
    "segment_b_start": (np.dtype(np.int16), None),
    "sentence_order_label": (np.dtype(np.int8), None),
    "mlm_positions": (np.dtype(np.int16), "P"),
    "mlm_labels": (np.dtype(np.int32), "P"),
}
REQUIRED_META = ("vocab_size", "special_ids", "task")
_COPY_BLOCK_BYTES = 32 << 20  # rows copied per block when finalising: bounded memory


class ExampleStoreWriter:
    """Append batches of examples; :meth:`close` makes the store appear atomically.

    Args:
        path: the final store directory. Written under a hidden temporary name beside it,
            renamed into place on :meth:`close` (replacing an older store there).
        max_seq_length: L, the row width of ``input_ids``.
        max_predictions: P, the row width of ``mlm_positions`` / ``mlm_labels``.
        meta: extra metadata: must hold ``vocab_size``, ``special_ids`` (pad, unk, cls, sep,
            mask) and ``task``; usually also ``tokenizer`` and ``config``. ``stats`` can be
            given (or completed) at :meth:`close`.

    Use as a context manager to discard the temporary directory when an error interrupts writing.
    """

    def __init__(self, path: str | os.PathLike, *, max_seq_length: int, max_predictions: int, meta: Mapping[str, Any]):
        missing = [k for k in REQUIRED_META if k not in meta]
        if missing:
            raise ValueError(f"store meta lacks {missing} (needs {list(REQUIRED_META)})")
        if not 8 <= max_seq_length <= np.iinfo(np.int16).max:
            raise ValueError(f"max_seq_length must be in [8, 32767], got {max_seq_length}")
        if not 1 <= max_predictions <= max_seq_length:
            raise ValueError(f"max_predictions must be in [1, max_seq_length], got {max_predictions}")
        self.path = Path(path)
        self.max_seq_length = int(max_seq_length)
        self.max_predictions = int(max_predictions)
        self.meta = dict(meta)
        self.num_examples = 0
        self._tmp = staging_folder(self.path)
        self._raw = {name: open(self._tmp / f"{name}.raw", "wb") for name in ARRAYS}
        self._closed = False

    def __enter__(self) -> "ExampleStoreWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()
        elif not self._closed:
            self.close()

    def _width(self, kind: str | None) -> int | None:
        return {"L": self.max_seq_length, "P": self.max_predictions, None: None}[kind]

    def append_batch(
        self,
        *,
        input_ids: np.ndarray,
        lengths: np.ndarray,
        segment_b_start: np.ndarray,
        sentence_order_label: np.ndarray,
        mlm_positions: np.ndarray,
        mlm_labels: np.ndarray,
    ) -> None:
        """Append B examples (arrays [B, L], [B], [B], [B], [B, P], [B, P]; cast to the store dtypes)."""
        if self._closed:
            raise ValueError("append_batch on a closed ExampleStoreWriter")
        arrays = dict(
            input_ids=input_ids,
            lengths=lengths,
            segment_b_start=segment_b_start,
            sentence_order_label=sentence_order_label,
            mlm_positions=mlm_positions,
            mlm_labels=mlm_labels,
        )
        n = len(lengths)
        for name, arr in arrays.items():
            dtype, kind = ARRAYS[name]
            arr = np.asarray(arr)
            width = self._width(kind)
            expected = (n,) if width is None else (n, width)
            if arr.shape != expected:
                raise ValueError(f"append_batch: {name} has shape {arr.shape}, expected {expected}")
            arrays[name] = arr
        lens = arrays["lengths"]
        if n and (lens.min() < 3 or lens.max() > self.max_seq_length):
            raise ValueError(f"append_batch: lengths must be in [3, {self.max_seq_length}]")
        bstart = arrays["segment_b_start"]
        if n and (np.any(bstart < 2) or np.any(bstart >= lens)):
            raise ValueError("append_batch: segment_b_start must be in [2, length)")
        for name, arr in arrays.items():
            dtype = ARRAYS[name][0]
            self._raw[name].write(np.ascontiguousarray(arr, dtype=dtype).tobytes())
        self.num_examples += n

    def abort(self) -> None:
        """Discard everything written so far (the final path is left untouched)."""
        for f in self._raw.values():
            f.close()
        shutil.rmtree(self._tmp, ignore_errors=True)
        self._closed = True

    def close(self, *, stats: Mapping[str, Any] | None = None) -> Path:
        """Finish the ``.npy`` files, write ``meta.json`` and rename the directory into place."""
        if self._closed:
            raise ValueError("ExampleStoreWriter already closed")
        for f in self._raw.values():
            f.close()
        n = self.num_examples
        for name, (dtype, kind) in ARRAYS.items():
            width = self._width(kind)
            shape = (n,) if width is None else (n, width)
            raw_path = self._tmp / f"{name}.raw"
            out = np.lib.format.open_memmap(self._tmp / f"{name}.npy", mode="w+", dtype=dtype, shape=shape)
            if n:
                src = np.memmap(raw_path, dtype=dtype, mode="r", shape=shape)
                rows = max(1, _COPY_BLOCK_BYTES // max(1, src[0:1].nbytes))
                for start in range(0, n, rows):
                    out[start : start + rows] = src[start : start + rows]
                del src
            out.flush()
            del out
            raw_path.unlink()
        meta = dict(self.meta)
        meta.update(
            format=FORMAT,
            version=VERSION,
            num_examples=n,
            max_seq_length=self.max_seq_length,
            max_predictions=self.max_predictions,
        )
        if stats is not None:
            meta["stats"] = {**meta.get("stats", {}), **dict(stats)}
        meta.setdefault("stats", {})
        meta["complete"] = True
        with open(self._tmp / META_FILE, "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2, sort_keys=True, default=str)
        replace_folder(self._tmp, self.path)  # every file forced to disk first, then the rename
        self._closed = True
        return self.path


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The ``meta.json`` of a complete store; :class:`DataFormatError` if absent, partial or foreign."""
    path = Path(path)
    meta_path = path / META_FILE
    if not meta_path.is_file():
        raise DataFormatError(
            "not an example store (no meta.json): an incomplete or interrupted `pretrain prepare`? run it again",
            path=path,
        )
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"meta.json is not valid JSON ({exc})", path=meta_path) from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise DataFormatError(f"meta.json: format is not {FORMAT!r}", path=meta_path)
    if meta.get("version") != VERSION:
        raise DataFormatError(
            f"meta.json: store version {meta.get('version')!r}, this code reads {VERSION}", path=meta_path
        )
    if meta.get("complete") is not True:
        raise DataFormatError("meta.json: store is not marked complete (interrupted write?)", path=meta_path)
    for key in ("num_examples", "max_seq_length", "max_predictions", *REQUIRED_META):
        if key not in meta:
            raise DataFormatError(f"meta.json: missing key {key!r}", path=meta_path)
    return meta


def _meta_int(key: str, doc: str) -> property:
    """A read-only property: ``int(self.meta[key])``."""
    return property(lambda self: int(self.meta[key]), doc=doc)


class ExampleStore:
    """Read-only, memory-mapped view of a store; batches are trimmed to their longest example.

    Raises :class:`DataFormatError` when the store is incomplete, foreign, or a file's
    dtype or shape disagrees with ``meta.json`` (a truncated copy, for instance).

    Attributes:
        meta: the parsed ``meta.json``.
        arrays: name -> read-only memmap of each ``.npy`` file.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.meta = read_meta(self.path)
        n = int(self.meta["num_examples"])
        widths = {"L": int(self.meta["max_seq_length"]), "P": int(self.meta["max_predictions"]), None: None}
        self.arrays: dict[str, np.ndarray] = {}
        for name, (dtype, kind) in ARRAYS.items():
            file = self.path / f"{name}.npy"
            if not file.is_file():
                raise DataFormatError(f"missing {file.name}", path=self.path)
            try:
                arr = np.load(file, mmap_mode="r")
            except (ValueError, OSError) as exc:  # truncated or damaged file
                raise DataFormatError(f"cannot read {file.name}: {exc}", path=file) from exc
            expected = (n,) if widths[kind] is None else (n, widths[kind])
            if arr.dtype != dtype or arr.shape != expected:
                raise DataFormatError(
                    f"{file.name} is {arr.dtype}{list(arr.shape)}, meta.json expects {dtype}{list(expected)}", path=file
                )
            self.arrays[name] = arr

    def __len__(self) -> int:
        return int(self.meta["num_examples"])

    max_seq_length = _meta_int("max_seq_length", "Tokens per example, [CLS] and [SEP]s included.")
    max_predictions = _meta_int("max_predictions", "Masked positions per example at most.")
    vocab_size = _meta_int("vocab_size", "Pieces in the tokenizer the store was made with.")

    @property
    def special_ids(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.meta["special_ids"].items()}

    @property
    def task(self) -> str:
        return str(self.meta["task"])

    @property
    def lengths(self) -> np.ndarray:
        """int16 [N] memmap: every example's length (for length-grouped sampling or token counts)."""
        return self.arrays["lengths"]

    def get_batch(self, indices: np.ndarray) -> dict[str, np.ndarray]:
        """Examples ``indices`` as int64 arrays, trimmed to the batch's longest example.

        Returns ``input_ids``, ``attention_mask``, ``token_type_ids`` [B, T];
        ``sentence_order_label`` [B]; ``mlm_positions`` (-1 padded) and ``mlm_labels``
        (-100 padded) [B, P'], where T is the longest length in the batch and P' the largest
        number of masked positions in the batch (at least 1, so the arrays are never empty).
        """
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= len(self)):
            raise IndexError(f"example indices must be in [0, {len(self)}), got {idx.min()}..{idx.max()}")
        a = self.arrays
        lengths = a["lengths"][idx].astype(np.int64)
        t = int(lengths.max()) if idx.size else 0
        cols = np.arange(t, dtype=np.int64)[None, :]
        b_start = a["segment_b_start"][idx].astype(np.int64)[:, None]
        attention = cols < lengths[:, None]
        positions = a["mlm_positions"][idx].astype(np.int64)
        counts = (positions != PAD_POSITION).sum(axis=1)
        p = max(1, int(counts.max()) if idx.size else 1)
        return {
            "input_ids": a["input_ids"][idx, :t].astype(np.int64),
            "attention_mask": attention.astype(np.int64),
            "token_type_ids": ((cols >= b_start) & attention).astype(np.int64),
            "sentence_order_label": a["sentence_order_label"][idx].astype(np.int64),
            "mlm_positions": np.ascontiguousarray(positions[:, :p]),  # a slice: contiguous for the pinned copy
            "mlm_labels": a["mlm_labels"][idx, :p].astype(np.int64),
        }

    def verify(self) -> None:
        """Full scan for internal consistency (lengths, pads, positions, label ranges); raises DataFormatError.

        Reads the whole store in blocks: use after copying a store, not on every load.
        """
        a, pad, v = self.arrays, self.special_ids["pad"], self.vocab_size
        block = 65536
        for s in range(0, len(self), block):
            ids = np.asarray(a["input_ids"][s : s + block])
            lens = np.asarray(a["lengths"][s : s + block]).astype(np.int64)
            pos = np.asarray(a["mlm_positions"][s : s + block]).astype(np.int64)
            lab = np.asarray(a["mlm_labels"][s : s + block])
            bst = np.asarray(a["segment_b_start"][s : s + block]).astype(np.int64)
            cols = np.arange(ids.shape[1])[None, :]
            bad = []
            if np.any((lens < 3) | (lens > ids.shape[1])):
                bad.append("lengths out of range")
            if np.any((bst < 2) | (bst >= lens)):
                bad.append("segment_b_start out of range")
            if np.any((ids < 0) | (ids >= v)):
                bad.append("input ids outside the vocabulary")
            if np.any((cols >= lens[:, None]) & (ids != pad)):
                bad.append("non-pad tokens after an example's length")
            used = pos != PAD_POSITION
            if np.any(used & ((pos < 1) | (pos >= lens[:, None]))) or np.any(used != (lab != PAD_LABEL)):
                bad.append("mlm positions/labels inconsistent")
            if np.any(used & ((lab < 0) | (lab >= v))):
                bad.append("mlm labels outside the vocabulary")
            if bad:
                raise DataFormatError(f"examples {s}..{s + len(ids) - 1}: {'; '.join(bad)}", path=self.path)
