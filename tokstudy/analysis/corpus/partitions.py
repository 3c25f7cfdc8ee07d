"""Partitions of a raw-text corpus that workers read themselves: whole files or byte ranges of them.

The client only lists files and their sizes (``stat``); it never opens the corpus. A
:class:`Partition` names a file and a byte range; the worker that gets it opens the file and
reads the lines that **start** inside the range (a line that crosses the range's end belongs to
this range, the next range skips it), so any cut of a file into ranges reads every line exactly
once. A ``.gz`` file cannot be entered in the middle and is always one partition.

Lines end at LF, CRLF or a lone CR, as everywhere in tokstudy (:mod:`tokstudy.data.textio`);
ranges are cut at LF. Every line comes with its byte offset in the (decompressed) file: together with the file's
key, that offset identifies the line whatever the partitioning, which is what the
partition-independent bootstrap of :mod:`tokstudy.analysis.corpus.counts` hashes.

>>> from pathlib import Path; p = Path("/tmp/_part_demo.txt"); _ = p.write_text("ab c\\nd\\n\\ne f\\n")
>>> parts = plan_partitions([(p, "demo.txt")], n_partitions=2)
>>> [(q.start, q.end) for q in parts]
[(0, 6), (6, 12)]
>>> [list(iter_partition_lines(q)) for q in parts]
[[(0, 'ab c'), (5, 'd')], [(8, 'e f')]]
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tokstudy.data.rawtext import language_of
from tokstudy.data.textio import open_binary
from tokstudy.datalocation import CORPORA, corpus_dir
from tokstudy.errors import DataFormatError, DataNotFoundError

#: default size of a byte-range partition of a plain-text file
DEFAULT_PARTITION_BYTES = 64 << 20
_BLOCK = 1 << 22


@dataclass(frozen=True)
class Partition:
    """One unit of work: lines of ``path`` that start in ``[start, end)`` (``end=None``: to the end).

    Attributes:
        path: absolute path of the file, as the workers see it (a shared file system on a cluster).
        key: the file's name relative to the corpus root; it seeds the bootstrap assignment, so
            the same corpus gives the same intervals wherever it is mounted.
        language: language code (from the file name, ``en.txt.gz`` -> ``en``).
        start: first byte of the range (in the decompressed stream for ``.gz``, where it is 0).
        end: end of the range, exclusive; ``None`` reads to the end of the file.
        size: bytes on disk the partition stands for (for the progress bar).
    """

    path: str
    key: str
    language: str
    start: int = 0
    end: int | None = None
    size: int = 0


def corpus_files(spec: str | os.PathLike, *, data_dir: str | os.PathLike | None = None) -> list[tuple[Path, str]]:
    """``[(path, key)]`` of a corpus given as a file, a folder or a registry name (``raw_text_large``).

    A folder contributes its files (sorted, ``*.md`` skipped); a registry name is looked up at the
    data location (``--data-dir``, ``$TOKSTUDY_DATA``). Raises :class:`DataNotFoundError`.
    """
    path = Path(spec).expanduser()
    if not path.exists() and str(spec) in CORPORA:
        path = corpus_dir(str(spec), data_dir)
    if path.is_file():
        return [(path.resolve(), path.name)]
    if path.is_dir():
        files = sorted(
            q for q in path.iterdir() if q.is_file() and not q.name.endswith(".md") and not q.name.startswith(".")
        )
        if not files:
            raise DataNotFoundError(f"{path}: folder holds no corpus files")
        return [(q.resolve(), q.name) for q in files]
    raise DataNotFoundError(
        f"{spec}: no such file or folder, and not a corpus name (known: {', '.join(sorted(CORPORA))})"
    )


def plan_partitions(
    files: Sequence[tuple[str | os.PathLike, str]],
    *,
    n_partitions: int | None = None,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    languages: Sequence[str] | None = None,
) -> list[Partition]:
    """Cut ``files`` into partitions: one per ``.gz`` file, byte ranges of the plain files.

    With ``n_partitions`` the plain files share ``n_partitions - (number of .gz files)`` ranges in
    proportion to their sizes (at least one each); otherwise ranges are about ``partition_bytes``.
    ``languages`` keeps only files whose language code is listed.
    """
    if n_partitions is not None and n_partitions < 1:
        raise ValueError(f"n_partitions must be >= 1, got {n_partitions}")
    if partition_bytes < 1:
        raise ValueError(f"partition_bytes must be >= 1, got {partition_bytes}")
    chosen = [(Path(p), key, language_of(p)) for p, key in files]
    if languages:
        chosen = [c for c in chosen if c[2] in set(languages)]
        if not chosen:
            raise DataNotFoundError(f"no corpus file for languages {list(languages)}")
    sizes = {p: p.stat().st_size for p, _, _ in chosen}
    plain = [c for c in chosen if c[0].suffix != ".gz"]
    n_gz = len(chosen) - len(plain)
    if n_partitions is None:
        pieces = {p: max(1, -(-sizes[p] // partition_bytes)) for p, _, _ in plain}
    else:
        pieces = _share(max(n_partitions - n_gz, len(plain)), [sizes[p] for p, _, _ in plain])
        pieces = {p: k for (p, _, _), k in zip(plain, pieces)}
    out = []
    for path, key, lang in chosen:
        size = sizes[path]
        if path.suffix == ".gz":
            out.append(Partition(str(path), key, lang, 0, None, size))
            continue
        k = pieces[path]
        cuts = [round(j * size / k) for j in range(k + 1)]
        out.extend(Partition(str(path), key, lang, a, b, b - a) for a, b in itertools.pairwise(cuts))
    return out


def _share(total: int, sizes: list[int]) -> list[int]:
    """Split ``total`` ranges over files by size (largest remainder), at least one each."""
    if not sizes:
        return []
    extra = total - len(sizes)
    weight = sum(sizes)
    # empty files only: nothing to weigh by, so the ranges are shared equally
    raw = [extra * s / weight for s in sizes] if weight else [extra / len(sizes)] * len(sizes)
    base = [int(r) for r in raw]
    order = sorted(range(len(sizes)), key=lambda i: raw[i] - base[i], reverse=True)
    for i in order[: extra - sum(base)]:
        base[i] += 1
    return [1 + b for b in base]


def iter_partition_lines(part: Partition) -> Iterator[tuple[int, str]]:
    """``(byte offset, line)`` of every non-blank line that starts in the partition's range.

    Raises :class:`DataFormatError` naming the file and its 1-based line on invalid UTF-8 (the
    line number is counted from the start of the file only then, on the error path).
    """
    path = Path(part.path)
    end = part.end
    with open_binary(path) as fh:
        pos = part.start
        if pos > 0:  # begin at the first line that starts at or after ``start``
            fh.seek(pos - 1)
            if fh.read(1) != b"\n":
                pos += len(fh.readline())
        try:
            for base, block in _line_blocks(fh, pos, end):
                if end is not None and base + len(block) >= end:  # decode only the lines that start before end
                    cut = block.find(b"\n", max(0, end - 1 - base))
                    block = block if cut < 0 else block[:cut]
                try:
                    text = block.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _decode_error(path, base, block, exc) from None
                offset = base
                for raw, line in zip(block.split(b"\n"), text.split("\n")):
                    if end is not None and offset >= end:
                        return
                    # a CR ends a line too (CRLF, old-Mac CR), as in tokstudy.data.textio; ranges are cut at LF
                    sub_offset = offset
                    for sub_raw, sub in zip(raw.split(b"\r"), line.split("\r")):
                        if sub_offset == 0 and sub.startswith("\ufeff"):
                            sub = sub[1:]
                        if sub.strip():
                            yield sub_offset, sub
                        sub_offset += len(sub_raw) + 1
                    offset += len(raw) + 1
        except (OSError, EOFError) as exc:  # truncated or corrupt gzip
            if isinstance(exc, DataNotFoundError):
                raise
            raise DataFormatError(f"could not read file: {exc}", path=path) from None


def _line_blocks(fh, pos: int, end: int | None) -> Iterator[tuple[int, bytes]]:
    """Blocks of whole lines (the last one may lack its newline) from ``pos`` until a line starts at ``end``."""
    tail = b""
    while end is None or pos < end:
        block = fh.read(_BLOCK)
        if not block:
            if tail:
                yield pos, tail
            return
        data = tail + block
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            tail = data
            continue
        yield pos, data[: cut - 1]  # without the last newline: split() then gives exactly the lines
        pos += cut
        tail = data[cut:]


def _decode_error(path: Path, base: int, block: bytes, exc: UnicodeDecodeError) -> DataFormatError:
    bad = base + exc.start
    line_start = block.rfind(b"\n", 0, exc.start) + 1
    column = exc.start - line_start
    snippet = block[max(line_start, exc.start - 10) : exc.start + 10]
    return DataFormatError(
        f"invalid UTF-8 at byte {column} of the line ({snippet!r}); expected UTF-8 text "
        "(convert Latin-1 files first, e.g. with iconv)",
        path=path,
        line=_line_number(path, bad),
    )


def _line_number(path: Path, offset: int) -> int:
    """1-based line holding byte ``offset`` (counts newlines from the start; only used on errors)."""
    newlines = 0
    with open_binary(path) as fh:
        left = offset
        while left > 0:
            block = fh.read(min(_BLOCK, left))
            if not block:
                break
            newlines += block.count(b"\n")
            left -= len(block)
    return newlines + 1
