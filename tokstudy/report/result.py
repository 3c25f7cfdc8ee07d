"""What a report holds: the typed result of a study or of ``tokstudy report``, one :class:`Table` per table.

A :class:`Table` is what a reader sees (``markdown``), its flat rows (the CSV) and its results (the JSON:
the analysis dataclasses of :mod:`tokstudy.analysis` made plain by
:func:`~tokstudy.report.tables.to_jsonable`, so a table read back from its files equals the one written).
:class:`ReportResult` gathers the tables a report shows, by name; :class:`StudyTables` adds what only a
study produces (its scores, control, cost and languages). This module also writes them and reads them back
(:func:`write_result`, :func:`read_result`, :func:`read_study_result`): the one module that knows the files'
names. Every table is ``<stem>.md`` (what a reader sees), ``<stem>.csv`` (flat rows) and ``<stem>.json`` (the
results), each when the table has it. ``tokstudy report`` writes them beside its index; a study under
``<root>/tables`` (:data:`STUDY_TABLES`), and its report stage reads them back, so what the report states is
exactly what the tables hold. A table read back has its CSV's cells as text: the report is made from the
Markdown and the JSON. The sections of a report are made from a result by :mod:`tokstudy.report.assemble`.

The JSON is read back typed, with one codec per table: a table of analysis results as the dataclasses it was
written from (:meth:`Table.rows_of`, through :func:`~tokstudy.report.codec.from_jsonable`; Table 4 and the
correlation as :meth:`SegmentationResult.table4_rows` and :meth:`ErrorResult.correlations`), a study's scores
and control as :class:`~tokstudy.report.scores.Score` and :class:`~tokstudy.report.scores.ControlComparison`
(:meth:`StudyTables.scores_by_task`, :meth:`StudyTables.control_by_task`), the attribution as its rows
(:class:`~tokstudy.report.attribution_rows.AttributionTable`, :meth:`ErrorResult.attribution_table`). Tables are
named by the constants of :mod:`tokstudy.report.names`, their breakdowns by :class:`Breakdown`.

>>> t = Table.of("scores", data={"ner": {"a": {"mean": float("nan")}}})
>>> t.data, t.files
({'ner': {'a': {'mean': None}}}, ('scores.json',))
>>> import tempfile
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
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Sequence, TypeVar

from tokstudy.analysis.model_errors.correlation import ErrorCorrelation
from tokstudy.analysis.stats.estimates import AdditionalSegmentation
from tokstudy.report import names
from tokstudy.report.attribution_rows import AttributionRow, AttributionTable, FrequencyRow
from tokstudy.report.codec import from_jsonable
from tokstudy.report.scores import ControlComparison, Score, control_from_json, scores_from_json
from tokstudy.report.tables import to_jsonable, write_csv

T = TypeVar("T")
#: what a table's ``<stem>.json`` holds: plain JSON (``to_jsonable`` of the results it was made from); each
#: table's codec reads it back typed (:meth:`Table.rows_of`, ``DatasetRepairs.from_json``, ``scores_from_json``)
Json = dict[str, Any] | list[Any]

#: a study's tables, under its results folder
STUDY_TABLES = "tables"


class Breakdown(StrEnum):
    """The breakdowns a report may hold (its tables ``by_<grouping>``), in the order it shows them. Each is the
    name of a grouping of :data:`tokstudy.analysis.stats.groupings.GROUPINGS`, so a member is also the key of
    the statistics' ``by`` and of :attr:`SegmentationResult.by`: ``by.get(Breakdown.LANGUAGE)``."""

    ENTITY_TYPE = "entity_type"
    POSITION = "position"
    LANGUAGE = "language"
    DATASET = "dataset"
    SPLIT = "split"


@dataclass(frozen=True)
class Records:
    """CSV rows as tuples under one header: ``csv.writer`` over tuples is several times faster than a
    ``DictWriter`` over dicts, for the largest tables (the shredded words: tens of thousands of rows)."""

    columns: tuple[str, ...]
    records: Sequence[tuple]


@dataclass(frozen=True)
class Table:
    """One table of a report, serialised as ``<stem>.md``, ``<stem>.csv`` and ``<stem>.json`` (each when present).

    Attributes:
        stem: the files' name without suffix (``table4``, ``by_language``).
        markdown: what the report shows (``<stem>.md``), or None.
        rows: the flat rows (``<stem>.csv``): dicts, or :class:`Records`; None when there is no CSV.
        data: the results as plain JSON (``<stem>.json``); None when there is no JSON.
    """

    stem: str
    markdown: str | None = None
    rows: list[dict] | Records | None = None
    data: Json | None = None

    @classmethod
    def of(cls, stem: str, markdown: str | None = None, rows=None, data=None) -> Table:
        """A table whose ``data`` are analysis results (dataclasses, numpy values, NaN): kept JSON-able."""
        return cls(stem, markdown, rows, None if data is None else to_jsonable(data))

    @property
    def files(self) -> tuple[str, ...]:
        """The names of the files this table is written as."""
        parts = (("md", self.markdown), ("csv", self.rows), ("json", self.data))
        return tuple(f"{self.stem}.{suffix}" for suffix, v in parts if v is not None)

    def rows_of(self, cls: type[T]) -> list[T]:
        """``data`` read back typed: one ``cls`` (the dataclass the table was written from) per entry, through
        :func:`~tokstudy.report.codec.from_jsonable`; empty without data."""
        return [from_jsonable(cls, r) for r in self.data or []]

    def links(self) -> str:
        """``[t.md](t.md) · [csv](t.csv) · [json](t.json)``: a link to each of its files, the first by name."""
        return " · ".join(f"[{f if i == 0 else f.rpartition('.')[2]}]({f})" for i, f in enumerate(self.files))


@dataclass(frozen=True)
class SegmentationResult:
    """Table 4 and what goes with it, for every tokenizer.

    Attributes:
        table4: additional segmentation of NE, non-NE and all words
            (:class:`~tokstudy.analysis.stats.estimates.AdditionalSegmentation` each).
        summary: fertility, continued words, unknown, byte-fallback and byte pieces.
        intrinsic: compression, entropy, vocabulary use (None where not computed: the study).
        by: NE / non-NE (or NE / non-NE / all) breakdowns, ``by_<grouping>``, by grouping (a :class:`Breakdown`
            finds one: its members equal the names).
        coverage_notes: where a tokenizer does not cover a dataset's text (its figures there measure unknown
            pieces or bytes): one warning each, shown under the summary (not serialised).
    """

    table4: Table
    summary: Table
    intrinsic: Table | None = None
    by: dict[str, Table] = field(default_factory=dict)
    coverage_notes: tuple[str, ...] = ()

    def table4_rows(self) -> list[AdditionalSegmentation]:
        """Table 4's rows, typed (read from its JSON)."""
        return self.table4.rows_of(AdditionalSegmentation)


@dataclass(frozen=True)
class ErrorResult:
    """The fine-tuned models' errors against segmentation.

    Attributes:
        correlation: Pearson / Spearman r of a word's pieces with its label error, per (model, tokenizer).
        error_by_pieces: the error rate by number of pieces (Markdown and CSV).
        attribution: odds ratio of an error per extra piece, adjusted for frequency, entity status and length.
        protocols: r under every protocol of the paper's correlation (the study, with ``count_lone_boundary``).
    """

    correlation: Table
    error_by_pieces: Table
    attribution: Table | None = None
    protocols: Table | None = None

    def correlations(self) -> list[ErrorCorrelation]:
        """The correlation's rows, typed (read from its JSON)."""
        return self.correlation.rows_of(ErrorCorrelation)

    def attribution_table(self) -> AttributionTable:
        """The attribution, typed (read from its JSON; no rows without it)."""
        return AttributionTable.from_json(self.attribution.data) if self.attribution else AttributionTable(())

    @property
    def attribution_rows(self) -> tuple[AttributionRow, ...]:
        """The attribution's rows, typed (empty without it)."""
        return self.attribution_table().rows

    @property
    def frequency_cells(self) -> tuple[FrequencyRow, ...]:
        """The attribution's matched view, typed (empty without it)."""
        return self.attribution_table().cells


@dataclass(frozen=True)
class StudyTables:
    """What only a study produces; each None when that part did not run.

    Attributes:
        scores: Tables 1-2, mean ± sd over seeds and Welch's p against the first model (JSON and CSV).
        control: pre-trained against the no-pre-training control, per task and model (JSON).
        cost: what every run cost (JSON and CSV).
        task_data: what the study read of each task's splits (JSON).
        task_text: the tasks' training text added to the corpora (JSON).
        languages, cross_language, vocabulary_gain: the languages part (``analysis.per_language``).
    """

    scores: Table | None = None
    control: Table | None = None
    cost: Table | None = None
    task_data: Table | None = None
    task_text: Table | None = None
    languages: Table | None = None
    cross_language: Table | None = None
    vocabulary_gain: Table | None = None

    def value(self, name: str, default=None):
        """The ``data`` of the table ``name``, or ``default`` when it is absent."""
        table = getattr(self, name)
        return default if table is None or table.data is None else table.data

    def scores_by_task(self) -> dict[str, dict[str, Score]]:
        """Tables 1-2, typed: ``{task: {model: Score}}`` (empty without scores)."""
        return scores_from_json(self.value(names.SCORES))

    def control_by_task(self) -> dict[str, dict[str, ControlComparison]]:
        """The control, typed: ``{task: {model: ControlComparison}}`` (empty without it)."""
        return control_from_json(self.value(names.CONTROL))


@dataclass(frozen=True)
class ReportResult:
    """Every table a report shows, and the figures drawn beside them (paths relative to the report's folder).

    Attributes:
        segmentation: Table 4, the summary, the intrinsic metrics and the breakdowns.
        errors: the error sections (with predictions only).
        examples: Table 3, the chosen sentences segmented by every tokenizer (Markdown, CSV and JSON in
            ``tokstudy report``; Markdown per task in a study).
        parity: fertility and parity on parallel text (when given).
        shredded: the frequent words each tokenizer shreds (both reports; absent from a study whose analysis did
            not compute them).
        morph: MorphScore and boundary P/R/F1 on gold segmentations (when given: ``tokstudy report --gold``, the
            study's ``analysis.gold_segmentations``).
        pieces: pieces that disagree and each aggregation's scores (``tokstudy report --piece-predictions``, the
            study's ``finetune.compare_labelling``).
        repairs, languages: the other sections of ``tokstudy report`` (when they apply).
        study: what only a study produces (None for ``tokstudy report``).
        figures: every figure written (PNG and SVG), relative to the report's folder.
    """

    segmentation: SegmentationResult
    errors: ErrorResult | None = None
    examples: Table | None = None
    parity: Table | None = None
    repairs: Table | None = None
    shredded: Table | None = None
    morph: Table | None = None
    pieces: Table | None = None
    languages: Table | None = None
    study: StudyTables | None = None
    figures: tuple[str, ...] = ()


# ---- the files -----------------------------------------------------------------------


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
    table4 = read_table(folder, names.TABLE4)
    if table4 is None:
        raise FileNotFoundError(f"{folder / f'{names.TABLE4}.json'}: no Table 4 there (not a finished report's tables)")
    by = {g: t for g in Breakdown if (t := read_table(folder, names.grouped(g))) is not None}
    segmentation = SegmentationResult(
        table4, read_table(folder, names.SUMMARY), read_table(folder, names.INTRINSIC), by
    )
    correlation = read_table(folder, names.CORRELATION)
    errors = (
        ErrorResult(
            correlation,
            read_table(folder, names.ERROR_BY_PIECES),
            read_table(folder, names.ATTRIBUTION),
            read_table(folder, names.R_PROTOCOLS),
        )
        if correlation is not None
        else None
    )
    examples = read_table(folder, names.TABLE3 if study else names.EXAMPLES)
    parts = {
        name: read_table(folder, name)
        for name in (names.PARITY, names.REPAIRS, names.SHREDDED, names.MORPH, names.PIECES)
    }
    if study:  # a study's languages table is its own (per task, against F1): StudyTables.languages
        parts["study"] = StudyTables(**{f.name: read_table(folder, f.name) for f in fields(StudyTables)})
    else:
        parts["languages"] = read_table(folder, names.LANGUAGES)
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
