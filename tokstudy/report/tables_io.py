"""A report's tables as files: :class:`~tokstudy.report.result.ReportResult` written and read back, in one place.

Every table is ``<stem>.md`` (what a reader sees), ``<stem>.csv`` (flat rows) and ``<stem>.json`` (the
results), each when the table has it (:class:`~tokstudy.report.result.Table`). ``tokstudy report`` writes
them beside its index; a study under ``<root>/tables`` (:data:`STUDY_TABLES`), and its report stage reads
them back with :func:`read_study_result`, so what the report states is exactly what the tables hold. No
other module names these files. A table read back has its CSV's cells as text: the report is made from the
Markdown and the JSON.

>>> import tempfile
>>> from tokstudy.report.result import Table
>>> folder = Path(tempfile.mkdtemp())
>>> [p.name for p in write_table(Table("t", "| a |", [{"a": 1}], [{"a": 1}]), folder)]
['t.md', 't.csv', 't.json']
>>> read_table(folder, "t")
Table(stem='t', markdown='| a |', rows=[{'a': '1'}], data=[{'a': 1}])
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import fields, replace
from pathlib import Path

from tokstudy.report.result import ErrorResult, Records, ReportResult, SegmentationResult, StudyTables, Table
from tokstudy.report.tables import write_csv

#: a study's tables, under its results folder
STUDY_TABLES = "tables"
#: the breakdowns a report may hold (``by_<grouping>``), in the order it shows them
GROUPINGS = ("entity_type", "position", "language", "dataset", "split")


def write_table(table: Table | None, folder: str | os.PathLike) -> list[Path]:
    """Write the files of ``table`` (none when it is None) into ``folder``; return their paths."""
    if table is None:
        return []
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    if table.markdown is not None:
        paths.append(folder / f"{table.stem}.md")
        paths[-1].write_text(table.markdown + "\n", encoding="utf-8")
    if isinstance(table.rows, Records):
        paths.append(write_records(table.rows, folder / f"{table.stem}.csv"))
    elif table.rows is not None:
        paths.append(write_csv(table.rows, folder / f"{table.stem}.csv"))
    if table.data is not None:
        paths.append(folder / f"{table.stem}.json")
        paths[-1].write_text(json.dumps(table.data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return paths


def write_records(rows: Records, path: str | os.PathLike) -> Path:
    """``rows`` as CSV at ``path``: the header, then one line per tuple."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(rows.columns)
        writer.writerows(rows.records)
    return path


def read_table(folder: str | os.PathLike, stem: str) -> Table | None:
    """The table ``stem`` of ``folder`` (None when it has none of its files). The CSV's cells come back as
    text: the JSON holds the typed values."""
    md, rows, js = (Path(folder) / f"{stem}.{suffix}" for suffix in ("md", "csv", "json"))
    markdown = md.read_text(encoding="utf-8").removesuffix("\n") if md.is_file() else None  # as written
    data = json.loads(js.read_text(encoding="utf-8")) if js.is_file() else None
    if rows.is_file():
        with open(rows, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    else:
        rows = None
    return None if markdown is None and data is None and rows is None else Table(stem, markdown, rows, data)


def _tables(obj) -> list[Table]:
    """Every table of a result's part, in field order (``by`` expanded)."""
    out: list[Table] = []
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, Table):
            out.append(value)
        elif isinstance(value, dict):
            out += [t for t in value.values() if isinstance(t, Table)]
        elif isinstance(value, (SegmentationResult, ErrorResult, StudyTables)):
            out += _tables(value)
    return out


def write_result(result: ReportResult, folder: str | os.PathLike) -> list[Path]:
    """Write every table of ``result`` into ``folder``; return the paths."""
    return [p for t in _tables(result) for p in write_table(t, folder)]


def read_result(folder: str | os.PathLike, *, study: bool = False) -> ReportResult:
    """Every table of ``folder`` (``tokstudy report``'s output, or with ``study`` a study's ``tables/``)."""
    folder = Path(folder)
    table4 = read_table(folder, "table4")
    if table4 is None:
        raise FileNotFoundError(f"{folder / 'table4.json'}: no Table 4 there (not a finished report's tables)")
    by = {g: t for g in GROUPINGS if (t := read_table(folder, f"by_{g}")) is not None}
    segmentation = SegmentationResult(table4, read_table(folder, "summary"), read_table(folder, "intrinsic"), by)
    correlation = read_table(folder, "correlation")
    errors = (
        ErrorResult(
            correlation,
            read_table(folder, "error_by_pieces"),
            read_table(folder, "attribution"),
            read_table(folder, "r_protocols"),
        )
        if correlation is not None
        else None
    )
    examples = read_table(folder, "table3" if study else "examples")
    parts = {name: read_table(folder, name) for name in ("parity", "repairs", "shredded", "morph")}
    if study:  # a study's languages table is its own (per task, against F1): StudyTables.languages
        parts["study"] = StudyTables(**{f.name: read_table(folder, f.name) for f in fields(StudyTables)})
    else:
        parts["languages"] = read_table(folder, "languages")
    return ReportResult(segmentation, errors, examples, **parts)


def read_study_result(root: str | os.PathLike) -> ReportResult:
    """What a study wrote under ``<root>/tables`` (:data:`STUDY_TABLES`), with the figures it drew."""
    root = Path(root)
    result = read_result(root / STUDY_TABLES, study=True)
    figures = tuple(sorted(p.relative_to(root).as_posix() for p in (root / "figures").glob("*.*")))
    return replace(result, figures=figures)


def study_path(table: Table, suffix: str) -> str:
    """Where a study keeps one of ``table``'s files, relative to its results folder: ``tables/<stem>.<suffix>``."""
    return f"{STUDY_TABLES}/{table.stem}.{suffix}"
