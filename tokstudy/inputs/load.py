"""Loading what the user named: :class:`~tokstudy.inputs.request.DatasetRequest` and
:class:`~tokstudy.inputs.request.TokenizerRequest` in, :class:`~tokstudy.inputs.request.Inputs` out.

>>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "mine.conll").write_text("Paris B-LOC\\nis O\\n", encoding="utf-8")
>>> [ds.name for ds in load_inputs(datasets=DatasetRequest([str(d / "mine.conll")])).datasets]
['mine']
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Sequence

from tokstudy.data.repairs import RepairLog
from tokstudy.data.types import Dataset
from tokstudy.datalocation import data_root, said_path, shown_path
from tokstudy.inputs.datasets import read_datasets
from tokstudy.inputs.request import DatasetRequest, Inputs, RepairReport, TokenizerRequest
from tokstudy.inputs.tokenizers import load_tokenizers


def load_inputs(*, datasets: DatasetRequest | None = None, tokenizers: TokenizerRequest | None = None) -> Inputs:
    """The datasets, then the tokenizers, of the requests given (a request left out loads nothing)."""
    loaded, repairs, notes = [], [], []
    if datasets is not None:
        root = data_root(datasets.data_dir) if datasets.data_dir else None
        read = read_datasets(datasets.specs, data_dir=root, language=datasets.language, options=datasets.options)
        loaded, notes = read.datasets, read.warnings
        repairs = repair_reports(loaded, datasets.data_dir)
    segmenters = []
    if tokenizers is not None:
        segmenters = load_tokenizers(
            tokenizers.specs,
            count_lone_boundary=tokenizers.count_lone_boundary,
            tiktoken_pattern=tokenizers.tiktoken_pattern,
        )
    return Inputs(loaded, segmenters, repairs, notes)


def repair_reports(datasets: Sequence[Dataset], data_dir: str | os.PathLike | None = None) -> list[RepairReport]:
    """What lenient reading repaired in each dataset: the text for the terminal names a file as the user typed it
    (:func:`~tokstudy.datalocation.said_path`), the log that goes into files is that of :func:`repair_logs`."""
    logs = repair_logs(datasets, data_dir)
    return [
        RepairReport(ds.name, ds.repair_log.describe(lambda path: said_path(path, data_dir)), logs[ds.name])
        for ds in datasets
        if ds.repair_log
    ]


def repair_logs(datasets: Sequence[Dataset], data_dir: str | os.PathLike | None = None) -> dict[str, RepairLog]:
    """``{dataset name: its repair log}`` of the datasets lenient reading repaired, each file named as it may be
    in files that travel: never by an absolute path (:func:`~tokstudy.datalocation.shown_path`), a file the data
    location holds relative to it. Dataset names are distinct (:class:`~tokstudy.inputs.request.Inputs`)."""

    def shown(path: str | None) -> str | None:
        return shown_path(path, data_dir) if path else path

    return {
        ds.name: replace(
            ds.repair_log,
            first=tuple(replace(r, path=shown(r.path)) for r in ds.repair_log.first),
            source=shown(ds.repair_log.source),
        )
        for ds in datasets
        if ds.repair_log
    }
