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


def atomic_write_text(path: str | os.PathLike, text: str, *, durable: bool = False) -> Path:
    """Write ``text`` (UTF-8, LF) to a temporary file beside ``path``, then rename it into place.

    ``durable`` also forces the file's bytes and then the rename to disk (``fsync`` of the file, then of its
    folder), so a power cut after the call returns cannot leave the old content or an empty file: for pointers
    such as a checkpoint folder's ``latest``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        apply_umask(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        fsync_path(path.parent)
    return path


def fsync_path(path: str | os.PathLike) -> None:
    """Force a file's bytes, or a folder's entries (a rename into it), to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
