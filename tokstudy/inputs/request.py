"""What the user named, as typed requests, and what loading it gives back.

Every front end (the CLI, the study, the app, a notebook) says what it wants as a :class:`DatasetRequest` and a
:class:`TokenizerRequest`, and :func:`tokstudy.inputs.load.load_inputs` gives :class:`Inputs` back: the datasets,
the tokenizers, and what reading them has to tell the user (tags repaired by lenient reading, a ``--scheme``
that registry datasets do not take) as data. Printing it, or writing it beside a result, is the front end's
business. This module loads nothing itself (no reader, no tokenizer library), so a command line can build
requests while it declares its options.

>>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "tiny.conll").write_text("Paris I-LOC\\nis O\\n", encoding="utf-8")
>>> request = DatasetRequest([str(d / "tiny.conll")], options=FileOptions(scheme="IOB2", lenient=True))
>>> from tokstudy.inputs.load import load_inputs
>>> got = load_inputs(datasets=request)
>>> [ds.name for ds in got.datasets], got.tokenizers, got.repairs[0].log.total
(['tiny'], [], 1)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from tokstudy.data.formats import FileOptions
from tokstudy.data.repairs import RepairLog
from tokstudy.data.types import Dataset
from tokstudy.errors import DataNotFoundError
from tokstudy.tokenization.base import Segmenter


class SchemeNotAppliedWarning(UserWarning):
    """A tag scheme was given for dataset files, and registry datasets beside them keep their own."""


@dataclass(frozen=True)
class DatasetRequest:
    """The datasets a user named.

    Attributes:
        specs: dataset specs (:mod:`tokstudy.inputs.datasets`): ``conll2003:test``, ``masakhaner2:*:test``,
            ``path.conll@de``, ``hf:NAME:SPLIT``, a SNIPS/ATIS folder.
        data_dir: the data location as the user gave it (None: ``$TOKSTUDY_DATA``, else ``data/corpora``);
            repaired files are named relative to it.
        language: the language of files given as paths without ``@LANG`` (None: ``und``).
        options: how files given as paths are read.
    """

    specs: Sequence[str]
    data_dir: str | os.PathLike | None = None
    language: str | None = None
    options: FileOptions = field(default_factory=FileOptions)

    def __post_init__(self) -> None:
        object.__setattr__(self, "specs", tuple(self.specs))


@dataclass(frozen=True)
class TokenizerRequest:
    """The tokenizers a user named.

    Attributes:
        specs: ``[NAME=]PATH`` or ``tiktoken:ENCODING`` (:mod:`tokstudy.inputs.tokenizers`).
        count_lone_boundary: count a lone word-boundary piece (``'▁'`` before ``,``) as a piece, as the
            mALBERT paper does.
        tiktoken_pattern: the pre-tokenizer pattern of ``.tiktoken`` rank files (None: their sidecar, else
            the encoding they are named after).
    """

    specs: Sequence[str]
    count_lone_boundary: bool = True
    tiktoken_pattern: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "specs", tuple(self.specs))


@dataclass(frozen=True)
class RepairReport:
    """What lenient reading repaired in one dataset.

    Attributes:
        dataset: the dataset's name.
        text: lines for the user: counts by kind and the first places, each file named as the user typed it.
        log: the repairs themselves, each file named as it may be in files that travel
            (:func:`tokstudy.inputs.load.repair_logs`): what ``--json`` and the reports write.
    """

    dataset: str
    text: str
    log: RepairLog


@dataclass(frozen=True)
class Inputs:
    """Loaded inputs and what loading them has to tell the user (never printed here).

    Attributes:
        datasets: in the order named, wildcards expanded, names distinct.
        tokenizers: in the order named, names distinct.
        repairs: one per dataset that lenient reading repaired.
        warnings: sentences for the user.
    """

    datasets: list[Dataset]
    tokenizers: list[Segmenter]
    repairs: list[RepairReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def repair_logs(self) -> dict[str, RepairLog]:
        """``{dataset name: its repair log}`` of the datasets lenient reading repaired, in the order read (what
        :func:`tokstudy.report.build.repairs` makes the ``repairs`` table of)."""
        return {r.dataset: r.log for r in self.repairs}


def check_files(paths: Sequence[str], option: str) -> None:
    """Refuse a missing file given to ``option`` (``--predictions``) before any work starts."""
    for path in paths:
        p = Path(path).expanduser()
        if not p.is_file():
            raise DataNotFoundError(
                f"{option} {path}: " + ("is a folder; expected a file" if p.is_dir() else "file not found")
            )
