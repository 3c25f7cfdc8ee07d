"""The study's report: one Markdown file and the same content as standalone HTML.

The report is assembled from sections of Markdown that the pipeline produces (tables
written by :mod:`tokstudy.report`, findings from :mod:`tokstudy.study.findings`,
figure links); the HTML is rendered by :func:`tokstudy.report.html.html_page`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tokstudy.report.html import html_page, markdown_to_html  # noqa: F401  (markdown_to_html: re-exported)


@dataclass(frozen=True)
class Section:
    title: str
    body: str
    """Markdown."""


def write_study_report(directory: str | os.PathLike, title: str, sections: list[Section]) -> dict[str, Path]:
    """Write ``report.md`` and ``report.html`` into ``directory``; return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    md = f"# {title}\n\n" + "\n\n".join(f"## {s.title}\n\n{s.body.strip()}" for s in sections) + "\n"
    page = html_page(title, md)
    paths = {"markdown": directory / "report.md", "html": directory / "report.html"}
    for key, text in (("markdown", md), ("html", page)):
        tmp = paths[key].with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, paths[key])
    return paths
