"""Files and folders written atomically (temporary name beside the target, then rename) with the user's
permissions: the one way tokstudy, the pre-trainer and the app write a result in place.

* a file: :func:`atomic_file` (a writer that takes a path), :func:`atomic_write_text`;
* a folder: :func:`atomic_folder` (a block fills a temporary folder that then replaces the target),
  or :func:`staging_folder` + :func:`replace_folder` where the folder is filled and put in place in
  separate steps (several tokenizers trained before any is put in place; a checkpoint written by every rank);
* several files that belong together (a command's ``--json``, ``--csv`` and figures): :func:`file_group`,
  each written under a temporary name and all put in place at the end, or none if anything failed.

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

import errno
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


class FileGroup:
    """Files a command writes, each under a temporary name beside its target, put in place together by
    :meth:`commit`, or all removed by :meth:`discard`: a failure anywhere leaves no output and the old
    content of every target (see :func:`file_group`).

    Three kinds of target: :meth:`file` (one file), :meth:`stem` (a writer that adds suffixes: ``fig`` ->
    ``fig.png``, ``fig.svg``) and :meth:`folder` (a writer that fills a folder; its files join the target
    folder, whose other files stay).
    """

    def __init__(self):
        #: (kind, temporary, target) of each file, stem and folder asked for, in order
        self._entries: list[tuple[str, Path, Path]] = []
        #: the folders made for the targets, removed again (when empty) on failure
        self._made: list[Path] = []
        #: the files put in place by :meth:`commit`, in the order their targets were asked for
        self.written: list[Path] = []
        #: the same by target asked for (a stem's files, a folder's files; a file's own path)
        self.placed: dict[Path, list[Path]] = {}

    def file(self, target: str | os.PathLike) -> Path:
        """A temporary file beside ``target`` for a writer to fill (by name); it becomes ``target`` on commit.
        The temporary name ends as ``target`` does (``.csv``), for writers that choose a format by it."""
        target = Path(target)
        self._make_parents(target)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent)
        os.close(fd)
        self._entries.append(("file", Path(name), target))
        return Path(name)

    def stem(self, target: str | os.PathLike) -> Path:
        """A temporary stem beside the stem ``target``: each ``<temporary>.<ext>`` written becomes
        ``<target>.<ext>`` on commit."""
        target = Path(target)
        self._make_parents(target)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)  # the empty file holds the name; the writer adds suffixes to it
        self._entries.append(("stem", Path(name), target))
        return Path(name)

    def folder(self, target: str | os.PathLike) -> Path:
        """A temporary folder to fill: each file in it is put at the same place under ``target`` on commit.
        ``target`` is made now if absent, and the temporary folder is made inside it (a hidden name), so that
        only ``target`` itself needs to be writable."""
        target = Path(target)
        self._make_parents(target / "_")
        tmp = Path(tempfile.mkdtemp(prefix=".staging-", suffix=".tmp", dir=target))
        apply_umask(tmp)
        self._entries.append(("folder", tmp, target))
        return tmp

    def final(self, path: str | os.PathLike) -> Path:
        """Where the temporary ``path`` (a file, or a file under a temporary folder or stem) goes on commit."""
        path = Path(path)
        for kind, tmp, target in self._entries:
            if kind in ("file", "stem") and path == tmp:
                return target
            if kind == "stem" and path.parent == tmp.parent and path.name.startswith(tmp.name + "."):
                return target.with_name(target.name + path.name[len(tmp.name) :])
            if kind == "folder" and path.is_relative_to(tmp):
                return target / path.relative_to(tmp)
        return path

    def commit(self) -> list[Path]:
        """Put every written file in place and return where (:attr:`written`). A target's old file is renamed
        aside first and put back if a later rename fails: on failure no new file is left, the old ones are back."""
        moves = self._moves()
        done: list[tuple[Path, Path | None]] = []
        try:
            for src, dst, _ in moves:
                if dst.is_dir() and not dst.is_symlink():  # made a folder since the command was checked
                    raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(dst))
                self._make_parents(dst)
                aside = None
                if dst.exists() or dst.is_symlink():
                    aside = dst.parent / f".{dst.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
                    os.replace(dst, aside)
                done.append((dst, aside))
                apply_umask(src)
                os.replace(src, dst)
        except BaseException:
            for dst, aside in reversed(done):
                if aside is not None:
                    os.replace(aside, dst)
                else:
                    dst.unlink(missing_ok=True)
            raise
        for _, aside in done:
            if aside is not None:
                aside.unlink()
        self.discard()  # what is left: the stems' names, the emptied temporary folders
        self.written = [dst for _, dst, _ in moves]
        for _, dst, target in moves:
            self.placed.setdefault(target, []).append(dst)
        return self.written

    def discard(self) -> None:
        """Remove every temporary file and folder, and the folders made for the targets where they are empty."""
        for kind, tmp, _ in self._entries:
            if kind == "folder":
                shutil.rmtree(tmp, ignore_errors=True)
                continue
            for path in self._stem_files(tmp) if kind == "stem" else ():
                path.unlink(missing_ok=True)
            tmp.unlink(missing_ok=True)
        for folder in reversed(self._made):  # the deepest first
            try:
                folder.rmdir()
            except OSError:  # not empty: an output was put there, or something else was
                pass

    def _moves(self) -> list[tuple[Path, Path, Path]]:
        """(temporary, where it goes, the target asked for) of every file written, in the order the targets
        were asked for."""
        moves = []
        for kind, tmp, target in self._entries:
            if kind == "file":
                written = [tmp]
            elif kind == "stem":
                written = self._stem_files(tmp)
            else:
                written = [p for p in sorted(tmp.rglob("*")) if not p.is_dir()]
            moves += [(p, self.final(p), target) for p in written]
        return moves

    @staticmethod
    def _stem_files(tmp: Path) -> list[Path]:
        return sorted(p for p in tmp.parent.iterdir() if p.name.startswith(tmp.name + "."))

    def _make_parents(self, target: Path) -> None:
        """Make ``target``'s missing folders, remembering them (the top one first) to remove on failure."""
        missing = []
        for folder in target.parents:
            if folder.exists():
                break
            missing.append(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        self._made += reversed(missing)


@contextmanager
def file_group() -> Iterator[FileGroup]:
    """A :class:`FileGroup` for the block to write into, put in place when the block ends; if the block (or
    putting the files in place) fails, nothing it wrote is left and every target keeps its old content. An
    ``OSError`` about a temporary file names its target instead.

    >>> import tempfile; d = Path(tempfile.mkdtemp())
    >>> with file_group() as group:
    ...     _ = group.file(d / "a.csv").write_text("a")
    ...     _ = group.file(d / "sub" / "b.json").write_text("{}")
    >>> [str(p.relative_to(d)) for p in group.written], sorted(p.name for p in d.iterdir())
    (['a.csv', 'sub/b.json'], ['a.csv', 'sub'])
    >>> with file_group() as group:  # doctest: +ELLIPSIS
    ...     _ = group.file(d / "a.csv").write_text("new")
    ...     _ = group.file(d / "c" / "d.csv").write_text("d")
    ...     raise ValueError("the third output failed")
    Traceback (most recent call last):
    ...
    ValueError: the third output failed
    >>> (d / "a.csv").read_text(), sorted(p.name for p in d.iterdir())
    ('a', ['a.csv', 'sub'])
    """
    group = FileGroup()
    try:
        yield group
        group.commit()
    except BaseException as exc:
        group.discard()
        if isinstance(exc, OSError) and exc.filename:  # name the file the user asked for, not its temporary name
            exc.filename = str(group.final(exc.filename))
        raise
