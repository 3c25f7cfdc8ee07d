"""Line-by-line reading of plain or gzip'd UTF-8 text, with exact line numbers on errors.

Files are streamed (never read whole) and decoded one line at a time, so invalid
UTF-8 is reported at its line instead of as a byte offset somewhere in a buffer.

>>> from pathlib import Path; p = Path("/tmp/_textio_demo.txt"); _ = p.write_text("a\\nb\\n")
>>> list(iter_lines(p))
[(1, 'a'), (2, 'b')]
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path
from typing import BinaryIO, Iterator

from tokstudy.errors import DataFormatError, DataNotFoundError


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Open ``path`` for binary reading, transparently un-gzipping ``.gz`` files."""
    path = Path(path)
    if not path.is_file():
        raise DataNotFoundError(f"{path}: file not found" if not path.exists() else f"{path}: not a regular file")
    if path.suffix == ".gz":
        # a buffered reader over GzipFile makes line iteration ~40 % faster
        return io.BufferedReader(gzip.GzipFile(path, "rb"), buffer_size=1 << 20)
    return open(path, "rb")


def iter_lines(path: str | os.PathLike, *, allow_empty: bool = False) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line, without the line ending.

    Raises :class:`DataFormatError` naming the file and line on invalid UTF-8, and
    on an empty file unless ``allow_empty``. A UTF-8 byte-order mark is dropped.
    """
    seen = False
    with open_binary(path) as fh:
        try:
            for number, raw in enumerate(fh, start=1):
                seen = True
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataFormatError(
                        f"invalid UTF-8 at byte {exc.start} of the line ({raw[max(0, exc.start - 10):exc.start + 10]!r}); "
                        "expected UTF-8 text (convert Latin-1 files first, e.g. with iconv)",
                        path=path,
                        line=number,
                    ) from None
                if number == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                yield number, text.rstrip("\r\n")
        except (OSError, EOFError) as exc:  # truncated or corrupt gzip
            if isinstance(exc, DataNotFoundError):
                raise
            raise DataFormatError(f"could not read file: {exc}", path=path) from None
    if not seen and not allow_empty:
        raise DataFormatError("file is empty; expected at least one line of text", path=path)
