"""A report document renders the Markdown it writes into HTML faithfully."""

from __future__ import annotations

from html.parser import HTMLParser

from tokstudy.report.assemble import Section, write_document
from tokstudy.report.html import markdown_to_html


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(fragment):
    p = _Collect()
    p.feed(fragment)
    return p


def test_tables_lists_images_and_escaping():
    md = (
        "Intro with `code` and **bold** & <tag>.\n\n- one\n- two\n\n| tok | NE % |\n|---|---:|\n| 2k | 90.1 |\n"
        "| 4k | 60.0 |\n\n![fig](figures/a.png)\n"
    )
    p = _parse(markdown_to_html(md))
    names = [t for t, _ in p.tags]
    assert names.count("li") == 2 and names.count("tr") == 3 and names.count("td") == 4
    assert ("img", {"alt": "fig", "src": "figures/a.png"}) in p.tags
    assert "<tag>" in "".join(p.text)  # escaped in HTML, recovered as text
    assert "code" in names and "strong" in names


def test_write_document(tmp_path):
    paths = write_document(tmp_path, "Study", [Section("Findings", "- NE words more split **yes**.")])
    md = paths["markdown"].read_text()
    assert md.startswith("# Study") and "## Findings" in md
    assert "<strong>yes</strong>" in paths["html"].read_text()


def test_docstring_example_runs():
    import doctest

    import tokstudy.report.assemble

    result = doctest.testmod(tokstudy.report.assemble)
    assert result.failed == 0 and result.attempted > 0
