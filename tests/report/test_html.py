"""Reports render to HTML exactly as markdown-it-py's reference renderer does, construct by construct."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tokstudy.report.assemble import Section, write_document
from tokstudy.report.html import html_page, markdown_to_html

ROOT = Path(__file__).resolve().parents[2]


def _reference(md: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(md)


def test_the_committed_study_report_renders_like_the_reference(tmp_path):
    md = (ROOT / "examples" / "cpu_report" / "report.md").read_text(encoding="utf-8")
    body = markdown_to_html(md)
    assert body == _reference(md)
    # every construct the study writes is really rendered, not left as Markdown text
    for element in ("<table>", "<th>", "<td>", "<a href=", "<img src=", "<li>", "<h2>", "<code>", "<strong>"):
        assert element in body, element
    assert "| --- |" not in body and "](" not in body


@pytest.mark.parametrize(
    "md",
    [
        "| a | b |\n|---|---:|\n| 1 | 2 |\n",
        "- one\n- two with `code`\n",
        "[link](tables/x.csv) and ![fig](figures/a.png)\n",
        "**bold** & <script>x</script>\n",
        "1. first\n2. second\n",
    ],
)
def test_each_construct_equals_the_reference(md):
    assert markdown_to_html(md) == _reference(md).replace("<script>x</script>", "&lt;script&gt;x&lt;/script&gt;")


def test_raw_html_is_escaped_not_passed_through():
    assert "<script>" not in markdown_to_html("<script>alert(1)</script>\n")


def test_study_report_page_is_the_rendered_markdown(tmp_path):
    paths = write_document(tmp_path, "Study", [Section("Findings", "- NE words more split **yes**.")])
    md = paths["markdown"].read_text(encoding="utf-8")
    assert paths["html"].read_text(encoding="utf-8") == html_page("Study", md)
