"""Code and docs say what the software does; which issue asked for it is the git log's to tell.

Issue numbers in docstrings, comments and pages go stale (the issue is closed, the code moves on). History
lives in ``benchmarks/results/`` (dated runs) and the git log, which are not scanned here; tests may name the
case they were written for.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the product's code, the benchmark scripts and the pages that describe them
PLACES = (
    "tokstudy/**/*.py",
    "tokstudy/**/*.yaml",
    "pretrain/**/*.py",
    "analysis_app/**/*.py",
    "benchmarks/*.py",
    "docs/*.md",
    "README.md",
)
ISSUE = re.compile(r"\b[Ii]ssues? ?#?\d+")


def issue_numbers(text: str) -> list[int]:
    """Line numbers that name an issue by number.

    >>> issue_numbers("one\\nuntil issue 33 the file\\nsee mauvilsa/jsonargparse#301\\n(Issue #4)")
    [2, 4]
    """
    return [n for n, line in enumerate(text.splitlines(), 1) if ISSUE.search(line)]


def test_no_code_or_page_names_an_issue_number():
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{n}"
        for place in PLACES
        for path in sorted(ROOT.glob(place))
        for n in issue_numbers(path.read_text(encoding="utf-8"))
    ]
    assert not found, "issue numbers (history belongs in the git log and benchmarks/results/):\n" + "\n".join(found)
