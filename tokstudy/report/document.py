"""A report as a document: a title, an optional introduction and sections of Markdown, written as
``<stem>.md`` and the same content as a standalone ``<stem>.html`` (:mod:`tokstudy.report.html`).

Every report of the project is written through :func:`write_document`: ``tokstudy report``'s
``index`` (:func:`~tokstudy.report.writer.write_report`) and the study's ``report``
(:mod:`tokstudy.study.report_sections`, which adds the study's own sections), so both read the same way
and render through the same Markdown renderer.

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
from tokstudy.report.html import html_page


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
