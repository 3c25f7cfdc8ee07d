"""What a report holds: the typed result of a study or of ``tokstudy report``, one :class:`Table` per table.

A :class:`Table` is what a reader sees (``markdown``), its flat rows (the CSV) and its results (the JSON:
the analysis dataclasses of :mod:`tokstudy.analysis` made plain by
:func:`~tokstudy.report.tables.to_jsonable`, so a table read back from its files equals the one written).
:class:`ReportResult` gathers the tables a report shows, by name; :class:`StudyTables` adds what only a
study produces (its scores, control, cost and languages). Both are written and read back by
:mod:`tokstudy.report.tables_io`, the one module that knows the files' names; the sections of a report are
made from them by :mod:`tokstudy.report.assemble`.

The JSON shapes (schemas in ``docs/analysis.md``), as :mod:`tokstudy.study.findings` reads them:

* ``table4.data``: ``[{"tokenizer", "ne": Est, "non_ne": Est, "all": Est, "boundary_policy", ...}]`` with
  ``Est = {"value", "low", "high", ...}`` (additional segmentation %);
* ``correlation.data``: ``[{"tokenizer", "model", "all": {"r", "p_value", "low", "high", "n", ...}, ...}]``;
* ``attribution.data``: ``{"attribution": [row per (model, tokenizer)], "by_frequency": [cell, ...]}``;
* ``StudyTables.scores.data``: ``{task: {model: {"mean", "std", "n", "metric", "values"}}}``.

>>> t = Table.of("scores", data={"ner": {"a": {"mean": float("nan")}}})
>>> t.data, t.files
({'ner': {'a': {'mean': None}}}, ('scores.json',))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from tokstudy.report.tables import to_jsonable


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
        data: the results, JSON-able (``<stem>.json``); None when there is no JSON.
    """

    stem: str
    markdown: str | None = None
    rows: list[dict] | Records | None = None
    data: Any = None

    @classmethod
    def of(cls, stem: str, markdown: str | None = None, rows=None, data=None) -> Table:
        """A table whose ``data`` are analysis results (dataclasses, numpy values, NaN): kept JSON-able."""
        return cls(stem, markdown, rows, None if data is None else to_jsonable(data))

    @property
    def files(self) -> tuple[str, ...]:
        """The names of the files this table is written as."""
        parts = (("md", self.markdown), ("csv", self.rows), ("json", self.data))
        return tuple(f"{self.stem}.{suffix}" for suffix, v in parts if v is not None)

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
        by: NE / non-NE (or NE / non-NE / all) breakdowns, ``by_<grouping>``, by grouping.
        coverage_notes: where a tokenizer does not cover a dataset's text (its figures there measure unknown
            pieces or bytes): one warning each, shown under the summary (not serialised).
    """

    table4: Table
    summary: Table
    intrinsic: Table | None = None
    by: dict[str, Table] = field(default_factory=dict)
    coverage_notes: tuple[str, ...] = ()


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

    @property
    def attribution_rows(self) -> list[dict]:
        return self.attribution.data["attribution"] if self.attribution else []

    @property
    def frequency_cells(self) -> list[dict]:
        return self.attribution.data["by_frequency"] if self.attribution else []


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


@dataclass(frozen=True)
class ReportResult:
    """Every table a report shows, and the figures drawn beside them (paths relative to the report's folder).

    Attributes:
        segmentation: Table 4, the summary, the intrinsic metrics and the breakdowns.
        errors: the error sections (with predictions only).
        examples: Table 3, the chosen sentences segmented by every tokenizer (Markdown, CSV and JSON in
            ``tokstudy report``; Markdown per task in a study).
        parity: fertility and parity on parallel text (when given).
        repairs, shredded, morph, languages: the other sections of ``tokstudy report`` (when they apply).
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
    languages: Table | None = None
    study: StudyTables | None = None
    figures: tuple[str, ...] = ()
