"""Markdown reports as standalone HTML pages, rendered by markdown-it-py (CommonMark + pipe tables).

Every report is written as Markdown first; this turns it into one self-contained HTML file with a
small stylesheet, so a report opens in a browser with its tables, links, lists and figures.

>>> print(markdown_to_html("# T\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |"), end="")
<h1>T</h1>
<table>
<thead>
<tr>
<th>a</th>
<th>b</th>
</tr>
</thead>
<tbody>
<tr>
<td>1</td>
<td>2</td>
</tr>
</tbody>
</table>
"""

from __future__ import annotations

import html
from functools import lru_cache

from markdown_it import MarkdownIt

_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f3f3f3}img{max-width:100%;border:1px solid #eee}code{background:#f5f5f5;padding:0 .2em}
h1{border-bottom:2px solid #333}h2{border-bottom:1px solid #ccc;margin-top:2em}"""  # noqa: E501 (CSS)


@lru_cache(maxsize=1)
def _renderer():
    # CommonMark with GitHub's pipe tables; raw HTML in the source is escaped, never passed through
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_to_html(md: str) -> str:
    """The HTML body of Markdown ``md``."""
    return _renderer().render(md)


def html_page(title: str, md: str) -> str:
    """A standalone HTML page (UTF-8, inline stylesheet) showing Markdown ``md``."""
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>\n{markdown_to_html(md)}\n</body></html>\n"
    )
