"""No script or page of the project spells an option the way the CLI has deprecated (issue 24 item 10).

The deprecated spellings are read from the parser itself (every :class:`DeprecatedAlias` of every command),
so a spelling deprecated later is checked too.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tokstudy.cli import build_parser
from tokstudy.cli.arguments import DeprecatedAlias

ROOT = Path(__file__).resolve().parents[2]
#: where commands are written for people or machines to run (tests keep the old spellings on purpose)
PLACES = ("benchmarks/*.py", "docs/*.md", "README.md", "examples/**/*.md", "tokstudy/**/*.yaml")


def deprecated_spellings() -> dict[str, str]:
    """Every deprecated option of every command -> its new spelling."""
    out = {}
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for sub in commands.choices.values():
        for action in sub._actions:
            if isinstance(action, DeprecatedAlias):
                out.update(dict.fromkeys(action.option_strings, action.new))
    return out


def test_the_parser_names_its_deprecated_spellings():
    assert deprecated_spellings() == {"--n-resamples": "--resamples", "--no-lone-boundary": "--drop-lone-boundary"}


def test_no_script_or_document_uses_a_deprecated_spelling():
    old = deprecated_spellings()
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(o)}(?![\w-])" for o in old))
    found = [
        f"{path.relative_to(ROOT)}:{n}: {m.group()} (use {old[m.group()]})"
        for glob in PLACES
        for path in sorted(ROOT.glob(glob))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in pattern.finditer(line)
    ]
    assert not found, found
