"""Files and folders written atomically (temporary name, then rename) with the user's permissions.

``tempfile.mkstemp`` creates files 0600 and ``mkdtemp`` folders 0700, whatever the umask:
renamed into place, they would stay private where the user expects group- or
world-readable results (shared project folders, web servers). :func:`apply_umask` gives
them the mode a plain ``open(path, "w")`` or ``mkdir`` would have.

>>> import os, tempfile; d = tempfile.mkdtemp(); old = os.umask(0o022)
>>> p = atomic_write_text(os.path.join(d, "x.txt"), "hi\\n"); _ = os.umask(old)
>>> oct(os.stat(p).st_mode & 0o777)
'0o644'
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def current_umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def apply_umask(path: str | os.PathLike) -> None:
    """Give ``path`` the mode a new file (0666) or folder (0777) gets under the current umask."""
    base = 0o777 if os.path.isdir(path) else 0o666
    os.chmod(path, base & ~current_umask())


@contextmanager
def atomic_file(path: str | os.PathLike, *, durable: bool = False) -> Iterator[Path]:
    """A temporary file beside ``path`` for the block to write (by name: a writer that takes a path, or
    ``open``), renamed onto ``path`` with the user's permissions when the block ends; removed if it raises.

    ``durable`` also forces the file's bytes and then the rename to disk (``fsync`` of the file, then of its
    folder), so a power cut after the block cannot leave the old content or an empty file.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> with atomic_file(os.path.join(d, "t.tsv")) as tmp:
    ...     _ = tmp.write_text("a b")
    >>> sorted(os.listdir(d))
    ['t.tsv']
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if durable:
            fsync_path(tmp)
        apply_umask(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_path(path.parent)


def atomic_write_text(path: str | os.PathLike, text: str, *, durable: bool = False) -> Path:
    """Write ``text`` (UTF-8, LF) to a temporary file beside ``path``, then rename it into place
    (:func:`atomic_file`; ``durable`` as there, for pointers such as a checkpoint folder's ``latest``)."""
    with atomic_file(path, durable=durable) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return Path(path)


def fsync_path(path: str | os.PathLike) -> None:
    """Force a file's bytes, or a folder's entries (a rename into it), to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
