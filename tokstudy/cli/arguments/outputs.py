"""The files a command writes: each output option checked as it is parsed (before any work), and every
output written through one :class:`~tokstudy.fileio.FileGroup`, so that a command that fails leaves none.

An output option is declared with its kind as its argparse ``type`` (:data:`output_file`,
:data:`output_stem`, :data:`output_folder`): a path the command could not write (a folder where a file is
expected, a file standing where a folder must be made, a folder that is not writable) is an argument error,
exit status 2, whose first line names the option and the path. Missing folders are no error: they are made.

>>> p = argparse.ArgumentParser(prog="tokstudy x", exit_on_error=False)
>>> _ = p.add_argument("--json", type=output_file)
>>> import tempfile; d = tempfile.mkdtemp()
>>> p.parse_args(["--json", d + "/new/a.json"]).json == d + "/new/a.json"
True
>>> p.parse_args(["--json", d])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
argparse.ArgumentError: argument --json: ... is a folder; expected a file name
"""

from __future__ import annotations

import argparse
import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tokstudy.data.repairs import RepairLog
from tokstudy.fileio import file_group
from tokstudy.report.repairs import RepairsTable
from tokstudy.report.tables import write_json


class OutputKind(enum.Enum):
    """What an output option names."""

    #: one file
    FILE = "file"
    #: a figure's stem: STEM.png and STEM.svg are written
    STEM = "stem"
    #: a folder the command fills (made if absent)
    FOLDER = "folder"


#: the files a figure's stem stands for
STEM_SUFFIXES = (".png", ".svg")


@dataclass(frozen=True)
class OutputType:
    """argparse ``type`` of an output option: the path as given, once :func:`output_problem` finds nothing."""

    kind: OutputKind

    def __call__(self, text: str) -> str:
        problem = output_problem(Path(text).expanduser(), self.kind)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return text


output_file = OutputType(OutputKind.FILE)
output_stem = OutputType(OutputKind.STEM)
output_folder = OutputType(OutputKind.FOLDER)


def output_problem(path: Path, kind: OutputKind) -> str | None:
    """Why the command could not write ``path`` as a ``kind`` output, or None.

    A file is written under a temporary name beside it and then renamed (:mod:`tokstudy.fileio`), so its
    folder must be writable; a folder's files are staged inside it, so the folder itself must be.

    >>> output_problem(Path("/"), OutputKind.FILE)
    '/ is a folder; expected a file name'
    >>> import tempfile; d = Path(tempfile.mkdtemp()); _ = (d / "notes.txt").write_text("")
    >>> output_problem(d / "notes.txt" / "fig", OutputKind.STEM).replace(str(d), "D")
    'cannot write D/notes.txt/fig: D/notes.txt is a file, not a folder'
    """
    if kind is OutputKind.STEM:
        figures = [path.with_name(path.name + suffix) for suffix in STEM_SUFFIXES]
        taken = [_existing_problem(f, folder=False) for f in figures if f.exists() or f.is_symlink()]
        return next(filter(None, taken), None) or _folder_problem(path)
    folder = kind is OutputKind.FOLDER
    if path.exists():
        problem = _existing_problem(path, folder=folder)
        if problem or folder:
            return problem
    return _folder_problem(path)


def _existing_problem(path: Path, *, folder: bool) -> str | None:
    """Why the existing ``path`` cannot be written as a file (or, with ``folder``, filled as a folder)."""
    if path.is_dir() and not folder:
        return f"{path} is a folder; expected a file name"
    if folder and not path.is_dir():
        return f"{path} is a file; expected a folder"
    if not os.access(path, os.W_OK | (os.X_OK if folder else 0)):
        return f"cannot write {path}: not writable (permission denied)"
    return None


def _folder_problem(path: Path) -> str | None:
    """Why ``path`` cannot be made in its folder: the nearest one that exists (the writers make the rest)."""
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot write {path}: {ancestor} is a file, not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot write {path}: {ancestor} is not writable (permission denied)"
    return None


def staged_outputs():
    """The :func:`~tokstudy.fileio.file_group` every command writes its outputs through: nothing is in place
    until every output is written, and a failure leaves none (nor a partial one).

    >>> import tempfile; d = Path(tempfile.mkdtemp())
    >>> with staged_outputs() as out:
    ...     _ = out.file(d / "a.csv").write_text("a")
    >>> print_written(out)  # doctest: +ELLIPSIS
    wrote .../a.csv
    """

    return file_group()


def print_written(group, *, first: str = "") -> None:
    """One ``wrote PATH`` line per output of ``group`` once in place (a figure's files on one line);
    ``first`` goes before the first line (``"\\n"``: a blank line after a table)."""
    for paths in group.placed.values():
        print(first + "wrote " + ", ".join(str(p) for p in paths))
        first = ""


def repairs_path(json_path: str | os.PathLike) -> Path:
    """Where a command's ``--json`` is a list (``correlate``, ``examples``), what lenient reading repaired is
    written beside it as ``<name>.repairs.json`` (``out.json`` -> ``out.repairs.json``): the list that
    ``stats --json`` holds under ``"repairs"`` (:class:`~tokstudy.report.repairs.RepairsTable`). The list keeps
    its shape for the scripts that read it.

    >>> str(repairs_path("runs/out.json"))
    'runs/out.repairs.json'
    """
    path = Path(json_path)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return path.with_name(f"{stem}.repairs.json")


def write_repairs_beside(group, json_path, repairs: Mapping[str, RepairLog]) -> None:
    """Stage the repairs of a ``--json`` list (:func:`repairs_path`) in ``group``, only when a tag was repaired;
    ``repairs`` is ``{dataset name: its repair log}`` (:meth:`~tokstudy.inputs.request.Inputs.repair_logs`)."""
    if repairs:
        write_json(RepairsTable.of(repairs).to_json(), group.file(repairs_path(json_path)))
