"""The files a command writes: refused before any work when they could not be written, and what lenient reading
repaired written beside a ``--json`` list."""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: the options whose value is a file the command writes (a figure's stem: STEM.png and STEM.svg beside it)
OUTPUT_FILES = ("json", "csv", "languages_csv", "markdown", "figure", "languages_figure")


def check_outputs(args, *, files: tuple[str, ...] = OUTPUT_FILES, folders: tuple[str, ...] = ()) -> None:
    """Refuse, before any work, an output file or folder the command could not write: a folder that
    cannot be created (a file stands in its way) or written to, a file name that is a folder.

    ``files`` and ``folders`` are ``args`` attributes (``--json`` is ``json``); those not set are skipped.
    The refusal is the ``OSError`` the write would raise (exit status 1, one line naming the place first),
    only sooner; a write that fails later all the same (a full disk) is reported the same way.

    >>> import tempfile, types; d = tempfile.mkdtemp()
    >>> check_outputs(types.SimpleNamespace(json=d, csv=None))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    IsADirectoryError: [Errno 21] is a folder: --json needs a file name: '...'
    """
    for dests, folder in ((files, False), (folders, True)):
        for dest in dests:
            value = getattr(args, dest, None)
            if value:
                check_writable(Path(value).expanduser(), f"--{dest.replace('_', '-')}", folder=folder)


def check_writable(path: Path, option: str, *, folder: bool = False) -> None:
    """Raise the ``OSError`` that writing the file (or, with ``folder``, the folder) ``path`` would meet."""
    if path.exists():
        if path.is_dir() and not folder:
            raise IsADirectoryError(errno.EISDIR, f"is a folder: {option} needs a file name", str(path))
        if folder and not path.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, f"is a file: {option} needs a folder", str(path))
        if not os.access(path, os.W_OK | (os.X_OK if folder else 0)):
            raise PermissionError(errno.EACCES, f"not writable, so {option} cannot be written", str(path))
        return
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise NotADirectoryError(
            errno.ENOTDIR, f"is a file, not a folder, so {option} {path} cannot be written", str(ancestor)
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise PermissionError(
            errno.EACCES, f"not writable (permission denied), so {option} {path} cannot be written", str(ancestor)
        )


def write_repairs_beside(json_path, repairs: list[dict]):
    """Where a command's ``--json`` is a list (``correlate``, ``examples``), what lenient reading repaired is
    written beside it as ``<name>.repairs.json`` (``out.json`` -> ``out.repairs.json``): the list that
    ``stats --json`` holds under ``"repairs"``. The list keeps its shape for the scripts that read it, and
    the file is written only when a tag was repaired. Returns its path, or None."""
    from tokstudy.report.tables import write_json  # deferred: the report package, only when a file is written

    if not repairs:
        return None
    path = Path(json_path)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return write_json(repairs, path.with_name(f"{stem}.repairs.json"))
