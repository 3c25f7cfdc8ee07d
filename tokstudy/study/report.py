"""The study's report: one Markdown file and the same content as standalone HTML.

The report is assembled from sections of Markdown that the pipeline produces (tables
written by :mod:`tokstudy.report`, findings from :mod:`tokstudy.study.findings`,
figure links). The HTML is rendered from the small Markdown subset we emit ourselves
(headings, paragraphs, bullet lists, pipe tables, images, code spans, bold), so no
Markdown library is needed.

>>> print(markdown_to_html("# T\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |"))
<h1>T</h1>
<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Section:
    title: str
    body: str
    """Markdown."""


_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f3f3f3}img{max-width:100%;border:1px solid #eee}code{background:#f5f5f5;padding:0 .2em}
h1{border-bottom:2px solid #333}h2{border-bottom:1px solid #ccc;margin-top:2em}"""


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', text)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def markdown_to_html(md: str) -> str:
    """Render the Markdown subset tokstudy writes into HTML fragments."""
    out: list[str] = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if m := re.match(r"^(#{1,4}) (.*)", line):
            n = len(m.group(1))
            out.append(f"<h{n}>{_inline(m.group(2))}</h{n}>")
            i += 1
        elif m := re.match(r"^!\[([^\]]*)\]\(([^)]+)\)\s*$", line):
            out.append(f'<p><img alt="{html.escape(m.group(1))}" src="{html.escape(m.group(2))}"></p>')
            i += 1
        elif line.lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            head = "".join(f"<th>{_inline(c)}</th>" for c in _cells(line))
            i += 2
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in _cells(lines[i])) + "</tr>")
                i += 1
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
        elif re.match(r"^\s*[-*] ", line):
            items = []
            while i < len(lines) and re.match(r"^\s*[-*] ", lines[i]):
                item = re.sub(r"^\s*[-*] ", "", lines[i])
                items.append(f"<li>{_inline(item)}</li>")
                i += 1
            out.append(f"<ul>{''.join(items)}</ul>")
        elif line.startswith("```"):
            i += 1
            code = []
            while i < len(lines) and not lines[i].startswith("```"):
                code.append(html.escape(lines[i]))
                i += 1
            i += 1
            out.append("<pre><code>" + "\n".join(code) + "</code></pre>")
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not re.match(r"^(#|\||!\[|\s*[-*] |```)", lines[i]):
                para.append(lines[i].strip())
                i += 1
            out.append(f"<p>{_inline(' '.join(para))}</p>")
    return "\n".join(out)


def write_study_report(directory: str | os.PathLike, title: str, sections: list[Section]) -> dict[str, Path]:
    """Write ``report.md`` and ``report.html`` into ``directory``; return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    md = f"# {title}\n\n" + "\n\n".join(f"## {s.title}\n\n{s.body.strip()}" for s in sections) + "\n"
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>\n{markdown_to_html(md)}\n</body></html>\n")
    paths = {"markdown": directory / "report.md", "html": directory / "report.html"}
    for key, text in (("markdown", md), ("html", page)):
        tmp = paths[key].with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, paths[key])
    return paths
