"""Files and folders written atomically (temporary name beside the target, then rename) with the user's
permissions: the one way tokstudy, the pre-trainer and the app write a result in place.

* a file: :func:`atomic_file` (a writer that takes a path), :func:`atomic_write_text`;
* a folder: :func:`atomic_folder` (a block fills a temporary folder that then replaces the target),
  or :func:`staging_folder` + :func:`replace_folder` where the folder is filled and put in place in
  separate steps (several tokenizers trained before any is put in place; a checkpoint written by every rank).

A reader never sees half a result: under the target's name there is the old content or the new one.
``durable`` forces the bytes and the rename to disk (``fsync``), so a power cut cannot leave an empty
file or a folder whose files were never written; folders are durable by default (checkpoints, models,
example stores are expensive to remake), files on request.

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
import secrets
import shutil
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


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = False) -> Path:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place (:func:`atomic_file`)."""
    with atomic_file(path, durable=durable) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def fsync_path(path: str | os.PathLike) -> None:
    """Force a file's bytes, or a folder's entries (a rename into it), to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(folder: str | os.PathLike) -> None:
    """Force every file under ``folder``, then every folder (the deepest first, ``folder`` last), to disk."""
    folder = Path(folder)
    subfolders = []
    for path in folder.rglob("*"):
        if path.is_symlink():
            continue
        if path.is_dir():
            subfolders.append(path)
        else:
            fsync_path(path)
    for path in sorted(subfolders, key=lambda p: len(p.parts), reverse=True):
        fsync_path(path)
    fsync_path(folder)


def staging_folder(path: str | os.PathLike) -> Path:
    """A new, empty, hidden folder beside ``path`` (with the user's permissions) to fill and then hand to
    :func:`replace_folder`; its name is unique, so concurrent writers of the same target do not collide."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    apply_umask(tmp)
    return tmp


def replace_folder(src: str | os.PathLike, dst: str | os.PathLike, *, durable: bool = True) -> Path:
    """Put the complete folder ``src`` (beside ``dst``: same file system) in place as ``dst``, replacing
    what is there; returns ``dst``.

    ``durable`` first forces every file and folder of ``src`` to disk (:func:`fsync_tree`), and after the
    rename ``dst``'s parent, so that a crash at any point leaves the old folder or the complete new one.
    An existing ``dst`` is renamed aside to a hidden name, ``src`` renamed onto ``dst``, and only then is
    the old one removed: if the rename fails, the old folder is put back. (Between the two renames,
    microseconds, ``dst`` is absent; a kill exactly there leaves the old content under ``.<name>.old-*``.)

    >>> import tempfile; d = Path(tempfile.mkdtemp())
    >>> (d / "out").mkdir(); _ = (d / "out" / "old.txt").write_text("old")
    >>> new = staging_folder(d / "out"); _ = (new / "new.txt").write_text("new")
    >>> sorted(p.name for p in replace_folder(new, d / "out").iterdir()), sorted(p.name for p in d.iterdir())
    (['new.txt'], ['out'])
    """
    src, dst = Path(src), Path(dst)
    if durable:
        fsync_tree(src)
    old = None
    if dst.exists() or dst.is_symlink():
        old = dst.parent / f".{dst.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
        os.replace(dst, old)
    try:
        os.replace(src, dst)
    except BaseException:
        if old is not None:
            os.replace(old, dst)
        raise
    if durable:
        fsync_path(dst.parent)
    if old is not None:
        _remove(old)
    return dst


def remove_folder(path: str | os.PathLike) -> None:
    """Remove a folder so that a kill half-way leaves a hidden ``.<name>.old-*`` folder, never a half-deleted
    one under its own name (renamed aside first, then deleted)."""
    path = Path(path)
    aside = path.parent / f".{path.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
    os.replace(path, aside)
    _remove(aside)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@contextmanager
def atomic_folder(path: str | os.PathLike, *, durable: bool = True) -> Iterator[Path]:
    """A temporary folder beside ``path`` for the block to fill, which replaces ``path``
    (:func:`replace_folder`) when the block ends; removed, and ``path`` left as it was, if the block raises.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> with atomic_folder(os.path.join(d, "model")) as tmp:
    ...     _ = (tmp / "config.json").write_text("{}")
    >>> os.listdir(d), os.listdir(os.path.join(d, "model"))
    (['model'], ['config.json'])
    """
    tmp = staging_folder(path)
    try:
        yield tmp
        replace_folder(tmp, path, durable=durable)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
