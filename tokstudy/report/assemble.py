"""The report assembler: a :class:`~tokstudy.report.result.ReportResult` as sections, and sections as a document.

Both reports of the project are assembled here. ``tokstudy report``
(:func:`~tokstudy.report.writer.write_report`) shows :func:`report_sections`; the study's report
(:mod:`tokstudy.study.report_sections`) shows its own reading of the same result (the paper's figures beside
ours, its findings) and takes the sections both share from here (:func:`attribution_section`). Either way
:func:`write_document` writes a title, an optional introduction and the sections as ``<stem>.md`` and the
same content as a standalone ``<stem>.html`` (:mod:`tokstudy.report.html`), so both read the same way and
render through the same Markdown renderer.

This layer reads a result and the analysis library's rendering; it never imports the study or a CLI
(``tests/test_layers.py``).

>>> from tokstudy.report.result import SegmentationResult, Table
>>> seg = SegmentationResult(Table("table4", "| t4 |", [], []), Table("summary", "| s |", [], []))
>>> [s.title for s in report_sections(ReportResult(seg))]
['Table 4: additional segmentation', 'Fertility, continued words, unknown, byte-fallback and byte pieces']
>>> import tempfile
>>> paths = write_document(tempfile.mkdtemp(), "Study", [Section("Findings", "- NE words split more **yes**.")])
>>> print(paths["markdown"].read_text(), end="")
# Study
<BLANKLINE>
## Findings
<BLANKLINE>
- NE words split more **yes**.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tokstudy.fileio import atomic_write_text
from tokstudy.report import attribution as ra
from tokstudy.report.html import html_page
from tokstudy.report.result import ErrorResult, ReportResult, SegmentationResult, Table

#: the figure of the attribution section (shown there, not again under Figures)
ODDS_FIGURE = "figures/odds_ratios.png"
#: the figure of the languages section
LANGUAGES_FIGURE = "figures/languages.png"
ATTRIBUTION_TITLE = "Does segmentation predict errors beyond frequency, entity status and length?"
SHREDDED_TITLE = "Shredded frequent words"
MORPH_TITLE = "Morpheme boundaries"
PIECES_TITLE = "Pieces that disagree, and how words get their label"
#: the shredded-words section of a study analysed before it existed (its tables hold no ``shredded`` table)
SHREDDED_ABSENT = (
    "Not in this study's tables: they were written before the study computed shredded words. Run the study "
    "again (its analysis stage) to add them, or `tokstudy stats --shredded` on its datasets and tokenizers."
)


@dataclass(frozen=True)
class Section:
    """One ``##`` section of a report.

    Attributes:
        title: the heading, without ``##``.
        body: its Markdown (tables, lists, links, figures as ``![alt](figures/x.png)``).
    """

    title: str
    body: str


def document_markdown(title: str, sections: Sequence[Section], intro: str = "") -> str:
    """The Markdown of the whole document: ``# title``, the introduction, then every section."""
    parts = [f"# {title}"] + ([intro.strip()] if intro.strip() else [])
    parts += [f"## {s.title}\n\n{s.body.strip()}" for s in sections]
    return "\n\n".join(parts) + "\n"


def write_document(
    directory: str | os.PathLike,
    title: str,
    sections: Sequence[Section],
    *,
    intro: str = "",
    stem: str = "report",
) -> dict[str, Path]:
    """Write ``<stem>.md`` and ``<stem>.html`` into ``directory`` (each atomically); return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    md = document_markdown(title, sections, intro)
    paths = {"markdown": directory / f"{stem}.md", "html": directory / f"{stem}.html"}
    for key, text in (("markdown", md), ("html", html_page(title, md))):
        atomic_write_text(paths[key], text)
    return paths


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


def table_section(title: str, table: Table | None) -> Section | None:
    """A section showing ``table``'s Markdown and a link to each of its files (None without the table): the
    shredded words, the morpheme boundaries and the pieces, in both reports."""
    if table is None or table.markdown is None:
        return None
    return Section(title, table.markdown + "\n\n" + table.links())


def shredded_section(table: Table | None, *, absent: str | None = None) -> Section | None:
    """The shredded frequent words (:mod:`tokstudy.report.shredded`); without the table, ``absent`` as its body
    (the study's note for a folder analysed before the section existed), or None."""
    if table is None and absent is not None:
        return Section(SHREDDED_TITLE, absent)
    return table_section(SHREDDED_TITLE, table)


def morph_section(table: Table | None) -> Section | None:
    """MorphScore and boundary P/R/F1 (:mod:`tokstudy.report.morph`), None without gold segmentations."""
    return table_section(MORPH_TITLE, table)


def pieces_section(table: Table | None) -> Section | None:
    """Pieces that disagree and each aggregation (:mod:`tokstudy.report.pieces`), None without per-piece
    predictions."""
    return table_section(PIECES_TITLE, table)


def _languages_section(table: Table, figures: Sequence[str]) -> Section:
    md = table.markdown + (f"\n\n![Gap per language]({LANGUAGES_FIGURE})" if LANGUAGES_FIGURE in figures else "")
    return Section("Table 4 per language", md + "\n\n" + table.links())


def _figures_section(figures: Sequence[str]) -> Section:
    """Every PNG not shown in a section already."""
    shown = [f for f in figures if f.endswith(".png") and f not in (ODDS_FIGURE, LANGUAGES_FIGURE)]
    return Section("Figures", "\n\n".join(f"![{Path(f).stem}]({f})" for f in shown))


def report_sections(result: ReportResult) -> list[Section]:
    """The sections of ``tokstudy report``, in reading order: the repairs first (every figure is computed on the
    repaired tags), segmentation, shredded words, morpheme boundaries, languages, Table 3, errors, pieces, parity,
    figures.
    """
    out = []
    if result.repairs is not None:
        out.append(Section("Tags repaired by lenient reading", result.repairs.markdown + _first_link(result.repairs)))
    out += segmentation_sections(result.segmentation)
    out += [s for s in (shredded_section(result.shredded), morph_section(result.morph)) if s is not None]
    if result.languages is not None:
        out.append(_languages_section(result.languages, result.figures))
    if result.examples is not None:
        out.append(Section("Table 3: examples", result.examples.markdown + _first_link(result.examples)))
    if result.errors is not None:
        out += error_sections(result.errors, figure=ODDS_FIGURE if ODDS_FIGURE in result.figures else None)
    if (pieces := pieces_section(result.pieces)) is not None:
        out.append(pieces)
    if result.parity is not None:
        out.append(Section("Parity on parallel text", result.parity.markdown))
    if result.figures:
        out.append(_figures_section(result.figures))
    return out
