"""No committed page names this machine's folders (issue 33 item 7): a command copied from the docs works in any
checkout, where the data is ``../shared/data`` (or ``$TOKSTUDY_DATA``), never ``/work/...``.

``benchmarks/results/`` is left out: its dated run records quote each command as it was run (GPU logs included);
their current figures, with their commands, are on BENCHMARKS.md, which is checked.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from tests.conftest import PROJECT_ROOT

MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|home)/")
RECORDS = "benchmarks/results/"


def _committed_markdown() -> list[str]:
    if shutil.which("git") and (PROJECT_ROOT / ".git").exists():
        out = subprocess.run(
            ["git", "ls-files", "*.md"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
        ).stdout
        return out.split()
    skip = (".venv", ".git", "node_modules", "results")
    return [
        p.relative_to(PROJECT_ROOT).as_posix()
        for p in PROJECT_ROOT.rglob("*.md")
        if not set(p.relative_to(PROJECT_ROOT).parts) & set(skip)
    ]


def test_no_committed_markdown_carries_an_absolute_machine_path():
    pages = [p for p in _committed_markdown() if not p.startswith(RECORDS)]
    assert "BENCHMARKS.md" in pages and "docs/app.md" in pages
    found = [
        f"{page}:{n}: {line.strip()[:120]}"
        for page in pages
        for n, line in enumerate((PROJECT_ROOT / page).read_text(encoding="utf-8").splitlines(), 1)
        if MACHINE_PATH.search(line)
    ]
    assert not found, "absolute paths of this machine (write ../shared/data or $TOKSTUDY_DATA):\n" + "\n".join(found)
