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

from collections.abc import Mapping
from typing import Sequence

from tokstudy.data.repairs import RepairLog
from tokstudy.report import attribution as ra
from tokstudy.report import names
from tokstudy.report import tables as rt
from tokstudy.report.attribution_rows import AttributionTable
from tokstudy.report.per_language import languages_report
from tokstudy.report.protocols import protocol_rows, protocols_markdown
from tokstudy.report.repairs import RepairsTable
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
    the rows and frequency cells of :class:`~tokstudy.report.attribution_rows.AttributionTable`, its section
    :mod:`tokstudy.report.attribution`; none without any) and, when given, r
    under every protocol (:class:`~tokstudy.analysis.model_errors.protocols.ProtocolCorrelations` each)."""
    table = AttributionTable.of(attributions)
    attribution = (
        Table.of(
            names.ATTRIBUTION,
            ra.attribution_section(table.rows, table.cells),
            [r.to_json() for r in table.rows],
            table.to_json(),
        )
        if table.rows
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


def repairs(logs: Mapping[str, RepairLog]) -> Table:
    """``repairs``: the tags lenient reading repaired, per dataset (``{dataset name: its repair log}``, the files
    named as they may be shown: :func:`tokstudy.inputs.load.repair_logs`), as :class:`RepairsTable` has them."""
    table = RepairsTable.of(logs)
    return Table.of(names.REPAIRS, table.markdown(), table.rows(), table.to_json())


def stats_json(
    datasets: Sequence[str], stats, languages=None, logs: Mapping[str, RepairLog] | None = None, shredded=None
) -> dict:
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
