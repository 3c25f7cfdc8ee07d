"""Each table of a report made from the analysis results: its Markdown, its flat rows and its JSON, in one schema.

The JSON of a table is :func:`~tokstudy.report.tables.to_jsonable` of the analysis results themselves (the
frozen dataclasses of :mod:`tokstudy.analysis`), the CSV its flat rows (``*_rows`` of
:mod:`tokstudy.report.tables`) and the Markdown what a reader sees. ``tokstudy report`` and the study make
their tables here and write them through :mod:`tokstudy.report.result`, so a ``table4.json`` means one
thing wherever it was written (schemas: ``docs/analysis.md``). Nothing here writes a file. The sections only
``tokstudy report`` shows make their tables in their own modules: :func:`tokstudy.report.shredded.shredded_report`,
:func:`tokstudy.report.morph.morph_report`, :func:`tokstudy.report.per_language.languages_report`.

>>> # build.table4(table_statistics(table).table4).markdown
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tokstudy.data.repairs import KINDS, RepairLog
from tokstudy.report import attribution as ra
from tokstudy.report import names
from tokstudy.report import tables as rt
from tokstudy.report.codec import from_jsonable
from tokstudy.report.per_language import languages_report
from tokstudy.report.protocols import protocol_rows, protocols_markdown
from tokstudy.report.result import ErrorResult, SegmentationResult, Table
from tokstudy.report.shredded import shredded_report
from tokstudy.report.table3 import example_rows, examples_markdown


def table4(results: Sequence) -> Table:
    """Table 4 (an :class:`~tokstudy.analysis.stats.estimates.AdditionalSegmentation` each)."""
    return Table.of(names.TABLE4, rt.table4_markdown(results), rt.table4_rows(results), list(results))


def summary(summaries: Sequence) -> Table:
    """Fertility, continued words, unknown pieces (:class:`~tokstudy.analysis.stats.estimates.SegmentationSummary`)."""
    return Table.of(names.SUMMARY, rt.summary_markdown(summaries), rt.summary_rows(summaries), list(summaries))


def intrinsic(summaries: Sequence) -> Table:
    """The intrinsic metrics per tokenizer and group."""
    return Table.of(names.INTRINSIC, rt.intrinsic_markdown(summaries), rt.intrinsic_rows(summaries), list(summaries))


def grouped(by: str, results: Sequence) -> Table:
    """``by_<by>``: additional segmentation per group (:class:`~tokstudy.analysis.stats.estimates.GroupedEstimates`)."""
    return Table.of(names.grouped(by), rt.grouped_markdown(results), rt.grouped_rows(results), list(results))


def segmentation(
    table4_results: Sequence, summaries: Sequence, by: dict, intrinsic_results=None, notes: Sequence[str] = ()
) -> SegmentationResult:
    """Table 4, the summary, the breakdowns ``{grouping: results}``, when computed the intrinsic metrics, and
    the coverage warnings (:func:`~tokstudy.analysis.table.bytepieces.coverage_notes`)."""
    return SegmentationResult(
        table4(table4_results),
        summary(summaries),
        None if intrinsic_results is None else intrinsic(intrinsic_results),
        {g: grouped(g, results) for g, results in by.items()},
        tuple(notes),
    )


def errors(correlations: Sequence, attributions: Sequence = (), protocols=None) -> ErrorResult:
    """The correlation (:class:`~tokstudy.analysis.model_errors.correlation.ErrorCorrelation` each), the error
    rate by pieces, the attribution (:class:`~tokstudy.analysis.model_errors.attribution.Attribution` each, as
    the rows and frequency cells of :mod:`tokstudy.report.attribution`; none without any) and, when given, r
    under every protocol (:class:`~tokstudy.analysis.model_errors.protocols.ProtocolCorrelations` each)."""
    attribution_rows, cells = ra.attribution_rows(attributions), ra.frequency_rows(attributions)
    attribution = (
        Table.of(
            names.ATTRIBUTION,
            ra.attribution_section(attribution_rows, cells),
            attribution_rows,
            {"attribution": attribution_rows, "by_frequency": cells},
        )
        if attribution_rows
        else None
    )
    protocol_table = (
        Table.of(names.R_PROTOCOLS, protocols_markdown(protocols), data=protocol_rows(protocols)) if protocols else None
    )
    return ErrorResult(
        Table.of(
            names.CORRELATION,
            rt.correlation_markdown(correlations),
            rt.correlation_rows(correlations),
            list(correlations),
        ),
        Table(names.ERROR_BY_PIECES, rt.pieces_markdown(correlations), rt.pieces_rows(correlations)),
        attribution,
        protocol_table,
    )


def parity(results: Sequence) -> Table:
    """``parity`` on parallel text (:func:`~tokstudy.analysis.stats.parity.parity` results)."""
    return Table.of(names.PARITY, rt.parity_markdown(results), rt.parity_rows(results), list(results))


def examples(exs: Sequence) -> Table:
    """Table 3 (:class:`~tokstudy.report.table3.ExampleSentence` each) as ``examples``."""
    return Table.of(names.EXAMPLES, examples_markdown(exs), example_rows(exs), list(exs))


@dataclass(frozen=True)
class RepairPlace:
    """One repair a log kept with its place (:attr:`~tokstudy.data.repairs.RepairLog.first`), as ``repairs.json``
    and the CSV hold it: the file as it may be shown, the line, and the tag as written and as read."""

    where: str
    """``file:line``."""
    kind: str
    """One of :data:`~tokstudy.data.repairs.KINDS`."""
    tag: str
    became: str
    after: str = ""


@dataclass(frozen=True)
class DatasetRepairs:
    """One dataset's entry of the ``repairs`` table: :meth:`~tokstudy.data.repairs.RepairLog.to_dict` with its
    ``dataset`` (as ``stats --json`` holds it under ``"repairs"``), read once and typed.

    >>> from tokstudy.data.repairs import START, Repair
    >>> entry = DatasetRepairs.of("mine", RepairLog.of([Repair(START, "a.conll", 3, "I-X", "B-X", "'O'")]))
    >>> entry.first[0].where, entry.headline(), DatasetRepairs.from_json(entry.to_json()) == entry
    ('a.conll:3', '1 tag repaired', True)
    """

    dataset: str
    source: str | None
    """The file, as it may be shown (None when unknown)."""
    total: int
    by_kind: dict[str, int]
    """How many of each kind, in the order of :data:`~tokstudy.data.repairs.KINDS`."""
    first: tuple[RepairPlace, ...]
    """The first places kept (:data:`~tokstudy.data.repairs.FIRST`)."""

    @classmethod
    def of(cls, dataset: str, log: RepairLog) -> DatasetRepairs:
        """The entry of ``log`` (its files named as the log holds them)."""
        return cls.from_json({"dataset": dataset, **log.to_dict()})

    @classmethod
    def from_json(cls, data: dict) -> DatasetRepairs:
        return from_jsonable(cls, data)

    def to_json(self) -> dict:
        return rt.to_jsonable(self)

    def headline(self) -> str:
        """Tags repaired, fused lines split, lines skipped (:meth:`~tokstudy.data.repairs.RepairLog.headline`)."""
        return RepairLog(self.by_kind).headline()


def repairs(logs: Sequence[dict]) -> Table:
    """``repairs``: the tags lenient reading repaired, per dataset (each a :class:`DatasetRepairs` as JSON, as
    ``stats --json`` holds them under ``"repairs"``, read here once); the CSV has one row per place kept."""
    entries = [DatasetRepairs.from_json(r) for r in logs]
    parts, rows = [], []
    for e in entries:
        source = f" in `{e.source}`" if e.source else ""
        parts.append(f"**{e.dataset}**: {e.headline()}{source} (lenient reading).")
        parts.append("\n".join(f"- {n} x {KINDS[k]}" for k, n in e.by_kind.items()))
        rows += [{"dataset": e.dataset, **rt.to_jsonable(p)} for p in e.first]
        shown = [{"where": p.where, "tag": p.tag, "after": p.after, "read as": p.became} for p in e.first]
        more = e.total - len(e.first)
        parts.append(rt.markdown_table(shown) + (f"\n\n... and {more} more" if more > 0 else ""))
    return Table.of(names.REPAIRS, "\n\n".join(parts), rows, [e.to_json() for e in entries])


def stats_json(datasets: Sequence[str], stats, languages=None, logs: Sequence[dict] = (), shredded=None) -> dict:
    """What ``tokstudy stats --json`` writes: the JSON of the report's tables, made here as ``tokstudy report``
    makes them, under their names: ``table4``, ``summary``, ``by`` (``{grouping: by_<grouping>.json}``),
    ``intrinsic``, ``languages`` (the rows of ``languages.csv``: Table 4 per language), ``repairs`` and, when
    computed, ``shredded``; beside them the ``datasets``.

    ``stats``: :func:`~tokstudy.analysis.stats.table_statistics`; ``languages``:
    :func:`~tokstudy.analysis.stats.per_language.language_table` (None with one dataset); ``logs``: as
    :func:`repairs`; ``shredded``: :func:`~tokstudy.analysis.stats.shredded.shredded_table`.
    """
    seg = segmentation(stats.table4, stats.summary, stats.by, stats.intrinsic)
    out = {
        "datasets": list(datasets),
        names.TABLE4: seg.table4.data,
        names.SUMMARY: seg.summary.data,
        "by": {g: table.data for g, table in seg.by.items()},
        names.INTRINSIC: None if seg.intrinsic is None else seg.intrinsic.data,
        names.LANGUAGES: languages_report(languages).rows if languages is not None else [],
        names.REPAIRS: repairs(logs).data if logs else [],
    }
    if shredded is not None:
        out[names.SHREDDED] = shredded_report(shredded).data
    return out
