"""Line-by-line reading of plain or gzip'd text, with exact line numbers on errors, every bad line at once.

Files are streamed (never read whole) in blocks of whole lines, each decoded at once
(fast); a block that does not decode is rescanned line by line, so the error names
its line instead of a byte offset somewhere in a buffer.

Lines end in ``\\n``, ``\\r\\n`` or a lone ``\\r`` (old Mac files), as Python's universal
newlines: a CR-only file has as many lines as its LF twin. A gzip file is recognised by
its magic bytes (``1f 8b``), whatever its name. The text is UTF-8 unless ``encoding=``
says otherwise (``latin-1`` for many CoNLL-2002 copies); a UTF-8 byte-order mark is dropped.

>>> from pathlib import Path; p = Path("/tmp/_textio_demo.txt"); _ = p.write_bytes(b"a\\rb\\r\\nc\\n")
>>> list(iter_lines(p))
[(1, 'a'), (2, 'b'), (3, 'c')]

The bad lines of one file are reported together, up to 20 with the total: a researcher fixing a file wants
every bad line at once, not one per run. Readers call :meth:`Problems.add` for each problem and
:meth:`Problems.raise_if_any` at the end; the error names the first problem as ``file:line: reason`` (so it
reads like a single error), lists the next ones below it and says how many there are in all.

>>> probs = Problems("f.conll")
>>> for line in (3, 9, 12):
...     probs.add(line, "line has 1 column; expected 2")
>>> try:
...     probs.raise_if_any()
... except DataFormatError as exc:
...     print(exc)
f.conll:3: line has 1 column; expected 2
  f.conll:9: line has 1 column; expected 2
  f.conll:12: line has 1 column; expected 2
  (3 problems in all)
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator

from tokstudy.errors import DataFormatError, DataNotFoundError

GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_ENCODING = "utf-8"


def check_encoding(encoding: str) -> str:
    """The canonical name of ``encoding``; raises :class:`DataFormatError` for an unknown one.

    >>> check_encoding("Latin-1")
    'iso8859-1'
    """
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise DataFormatError(
            f"unknown text encoding {encoding!r}; expected a Python codec name such as utf-8, latin-1 or cp1252"
        ) from None
    if "\n\r".encode(name, errors="replace") != b"\n\r" or name.startswith(("utf-16", "utf-32")):
        # lines are cut on the bytes of LF and CR, which is right only where they are single bytes
        raise DataFormatError(f"text encoding {encoding!r} is not ASCII-compatible; convert the file to UTF-8 first")
    return name


def is_gzip(path: str | os.PathLike) -> bool:
    """Whether the file starts with the gzip magic bytes."""
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Open ``path`` for binary reading, transparently un-gzipping gzip files (found by magic bytes)."""
    path = Path(path)
    if not path.is_file():
        if path.is_dir():
            raise DataNotFoundError(f"{path}: is a directory; expected a file")
        raise DataNotFoundError(f"{path}: file not found" if not path.exists() else f"{path}: not a regular file")
    if is_gzip(path):
        # a buffered reader over GzipFile makes line iteration ~40 % faster
        return io.BufferedReader(gzip.GzipFile(path, "rb"), buffer_size=1 << 20)
    return open(path, "rb")


def iter_lines(
    path: str | os.PathLike, *, allow_empty: bool = False, encoding: str = DEFAULT_ENCODING
) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line, without the line ending.

    Raises :class:`DataFormatError` naming the file and line on text that is not valid
    in ``encoding``, on a corrupt or truncated gzip stream, and on an empty file unless
    ``allow_empty``. A byte-order mark is dropped. Text is decoded in blocks of whole
    lines (fast); only a block that fails to decode is rescanned line by line.
    """
    encoding = check_encoding(encoding)
    number = 0
    tail = b""
    with open_binary(path) as fh:
        try:
            while True:
                block = fh.read(_BLOCK)
                if not block:
                    break
                block = tail + block
                # a CR that ends the block may be the first half of a CRLF: keep it for the next block
                end = len(block) - 1 if block.endswith(b"\r") else len(block)
                cut = max(block.rfind(b"\n", 0, end), block.rfind(b"\r", 0, end)) + 1
                if cut <= 0:  # no complete line yet: keep reading
                    tail = block
                    continue
                tail = block[cut:]
                lines = _split(_decode(block[:cut], path, number, encoding))
                lines.pop()  # the empty string after the block's last line end
                if number == 0 and lines and lines[0].startswith("\ufeff"):
                    lines[0] = lines[0][1:]
                for line in lines:
                    number += 1
                    yield number, line
        except (OSError, EOFError, zlib.error) as exc:  # truncated or corrupt gzip
            if isinstance(exc, DataNotFoundError):
                raise
            # the reader fails on a whole block: count the lines that decompress before the break, so the error
            # names where the file breaks off, not the first line of the block
            line = max(number, _lines_before_break(path)) + 1
            raise DataFormatError(
                f"could not read file ({exc}); the data breaks off at or after this line; expected plain text or a "
                "complete gzip file",
                path=path,
                line=line,
            ) from None
    if tail:
        lines = _split(_decode(tail, path, number, encoding))
        if lines and lines[-1] == "":
            lines.pop()  # the tail was a lone CR
        if number == 0 and lines and lines[0].startswith("\ufeff"):
            lines[0] = lines[0][1:]
        for line in lines:
            number += 1
            yield number, line
    if number == 0 and not allow_empty:
        raise DataFormatError("file is empty; expected at least one line of text", path=path)


_BLOCK = 1 << 22


def _lines_before_break(path: str | os.PathLike, chunk: int = 1 << 10) -> int:
    """Complete lines a truncated or corrupt gzip file yields before it breaks (read in small chunks)."""
    n = 0
    try:
        with gzip.open(path, "rb") as fh:
            while data := fh.read(chunk):
                n += data.count(b"\n")
    except (OSError, EOFError, zlib.error):
        pass
    return n


def _split(text: str) -> list[str]:
    """Split on LF, CRLF and lone CR (only when a CR is present: the common case stays one ``split``)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _decode(block: bytes, path, first_line: int, encoding: str) -> str:
    """Decode a block of whole lines; on a decoding error name the exact line."""
    try:
        return block.decode(encoding)
    except UnicodeDecodeError:
        pass
    raws = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    for offset, raw in enumerate(raws, start=first_line + 1):
        try:
            raw.decode(encoding)
        except UnicodeDecodeError as exc:
            label = "UTF-8" if encoding == "utf-8" else encoding
            advice = (
                "convert Latin-1 files first, e.g. with iconv, or pass --encoding latin-1"
                if encoding == "utf-8"
                else "check the --encoding"
            )
            raise DataFormatError(
                f"invalid {label} at byte {exc.start} of the line ({raw[max(0, exc.start - 10) : exc.start + 10]!r}); "
                f"expected {label} text ({advice})",
                path=path,
                line=offset,
            ) from None
    raise DataFormatError(f"text is not valid {encoding} across a line end", path=path, line=first_line + 1)


#: how many problems one error lists (the total is always given)
MAX_REPORTED = 20


class Problems:
    """The problems found in one file, in the order added (sort them with ``sort=True`` on raising)."""

    def __init__(self, path: str | os.PathLike | None, *, limit: int = MAX_REPORTED):
        self.path = path
        self.limit = limit
        self.items: list[tuple[int | None, str, type[DataFormatError]]] = []
        self.total = 0

    def add(self, line: int | None, reason: str, kind: type[DataFormatError] = DataFormatError) -> None:
        """Record one problem (only the first ``limit`` are kept; all are counted)."""
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append((line, reason, kind))

    def add_error(self, exc: DataFormatError) -> None:
        """Record a :class:`DataFormatError` raised by a helper (its line and reason)."""
        self.add(exc.line, exc.reason, type(exc))

    def count(self, n: int) -> None:
        """Count ``n`` further problems that are not listed (they lie beyond the first ``limit``)."""
        self.total += n

    def __bool__(self) -> bool:
        return self.total > 0

    def raise_if_any(self, *, sort: bool = False) -> None:
        """Raise the first problem's error class, listing up to ``limit`` problems and the total."""
        if not self.total:
            return
        items = sorted(self.items, key=lambda it: (it[0] is None, it[0] or 0)) if sort else self.items
        line, reason, kind = items[0]
        raise kind(reason, path=self.path, line=line, others=[(ln, r) for ln, r, _ in items[1:]], total=self.total)
