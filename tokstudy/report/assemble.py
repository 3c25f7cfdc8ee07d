"""The report assembler: a :class:`~tokstudy.report.result.ReportResult` as sections, and sections as a document.

Both reports of the project are assembled here. ``tokstudy report``
(:func:`~tokstudy.report.writer.write_report`) shows :func:`report_sections`; the study's report
(:mod:`tokstudy.study.report_sections`) shows its own reading of the same result (the paper's figures beside
ours, its findings) and takes the sections both share from here (:func:`attribution_section`). Either way
:func:`assemble` writes the Markdown and the standalone HTML through :mod:`tokstudy.report.document`.

This layer reads a result and the analysis library's rendering; it never imports the study or a CLI
(``tests/test_layers.py``).

>>> from tokstudy.report.result import SegmentationResult, Table
>>> seg = SegmentationResult(Table("table4", "| t4 |", [], []), Table("summary", "| s |", [], []))
>>> [s.title for s in report_sections(ReportResult(seg))]
['Table 4: additional segmentation', 'Fertility, continued words, unknown, byte-fallback and byte pieces']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from tokstudy.report import attribution as ra
from tokstudy.report.document import Section, write_document
from tokstudy.report.result import ErrorResult, ReportResult, SegmentationResult, Table

#: the figure of the attribution section (shown there, not again under Figures)
ODDS_FIGURE = "figures/odds_ratios.png"
#: the figure of the languages section
LANGUAGES_FIGURE = "figures/languages.png"
ATTRIBUTION_TITLE = "Does segmentation predict errors beyond frequency, entity status and length?"


def assemble(
    directory: str | os.PathLike, title: str, sections: Sequence[Section], *, intro: str = "", stem: str = "report"
) -> dict[str, Path]:
    """Write ``<stem>.md`` and ``<stem>.html`` of ``sections`` into ``directory``; return their paths."""
    return write_document(directory, title, sections, intro=intro, stem=stem)


def _first_link(table: Table) -> str:
    return f"\n\n[{table.stem}.md]({table.stem}.md)"


def segmentation_sections(seg: SegmentationResult) -> list[Section]:
    """Table 4, the summary (with coverage warnings), the intrinsic metrics and one breakdown per grouping."""
    notes = "".join(f"\n\n> **Warning:** {note}" for note in seg.coverage_notes)
    out = [
        Section("Table 4: additional segmentation", seg.table4.markdown + "\n\n" + seg.table4.links()),
        Section(
            "Fertility, continued words, unknown, byte-fallback and byte pieces",
            seg.summary.markdown + notes + _first_link(seg.summary),
        ),
    ]
    if seg.intrinsic is not None:
        title = "Intrinsic metrics: compression, entropy, vocabulary use"
        out.append(Section(title, seg.intrinsic.markdown + _first_link(seg.intrinsic)))
    for by, table in seg.by.items():
        out.append(Section(f"Additional segmentation by {by.replace('_', ' ')}", table.markdown + _first_link(table)))
    return out


def attribution_section(errors: ErrorResult, *, figure: str | None) -> Section:
    """Odds ratios of an error per extra piece beyond frequency, entity status and length (its rows and cells)."""
    body = ra.attribution_section(errors.attribution_rows, errors.frequency_cells, figure=figure)
    return Section(ATTRIBUTION_TITLE, body)


def error_sections(errors: ErrorResult, *, figure: str | None) -> list[Section]:
    """The correlation of segmentation with errors, the error rate by pieces, and the attribution section."""
    body = errors.correlation.markdown + "\n\n### Error rate by number of pieces\n\n" + errors.error_by_pieces.markdown
    return [Section("Segmentation vs model errors", body), attribution_section(errors, figure=figure)]


def _languages_section(table: Table, figures: Sequence[str]) -> Section:
    md = table.markdown + ("\n\n![Gap per language](figures/languages.png)" if LANGUAGES_FIGURE in figures else "")
    return Section("Table 4 per language", md + "\n\n" + table.links())


def _figures_section(figures: Sequence[str]) -> Section:
    """Every PNG not shown in a section already."""
    shown = [f for f in figures if f.endswith(".png") and f not in (ODDS_FIGURE, LANGUAGES_FIGURE)]
    return Section("Figures", "\n\n".join(f"![{Path(f).stem}]({f})" for f in shown))


def report_sections(result: ReportResult) -> list[Section]:
    """The sections of ``tokstudy report``, in reading order: the repairs first (every figure is computed on the
    repaired tags), segmentation, shredded words, morpheme boundaries, languages, Table 3, errors, parity, figures.
    """
    out = []
    if result.repairs is not None:
        out.append(Section("Tags repaired by lenient reading", result.repairs.markdown + _first_link(result.repairs)))
    out += segmentation_sections(result.segmentation)
    for title, table in (("Shredded frequent words", result.shredded), ("Morpheme boundaries", result.morph)):
        if table is not None:
            out.append(Section(title, table.markdown + "\n\n" + table.links()))
    if result.languages is not None:
        out.append(_languages_section(result.languages, result.figures))
    if result.examples is not None:
        out.append(Section("Table 3: examples", result.examples.markdown + _first_link(result.examples)))
    if result.errors is not None:
        out += error_sections(result.errors, figure=ODDS_FIGURE if ODDS_FIGURE in result.figures else None)
    if result.parity is not None:
        out.append(Section("Parity on parallel text", result.parity.markdown))
    if result.figures:
        out.append(_figures_section(result.figures))
    return out
