"""Assemble BENCHMARKS.md, the current figures, from the blocks marked in benchmarks/results/*.md.

Each area's results file is its history: dated runs with their machine, load and command. At its top, a
block between ``<!-- current: TITLE -->`` and ``<!-- /current -->`` holds the area's latest figures as one
short table; this script copies those blocks, in the order of ``ORDER``, into one page with a link to each
history. A new measurement is recorded in its area's file (a dated section) and, where it replaces a figure,
in the block; then

    python benchmarks/assemble.py            # writes BENCHMARKS.md
    python benchmarks/assemble.py --check    # exit 1 if BENCHMARKS.md is not what the blocks give
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PAGE = ROOT.parent / "BENCHMARKS.md"
ORDER = [
    "data",
    "tokenizers",
    "analysis",
    "cli_startup",
    "corpus",
    "prepare",
    "pretrain",
    "finetune",
    "study",
    "app",
    "tests",
]
BLOCK = re.compile(r"^<!-- current: (?P<title>.+?) -->\n(?P<body>.*?)^<!-- /current -->$", flags=re.S | re.M)

HEADER = """# Benchmarks

The latest measured figure of each area, with the date, the machine, the load average while it ran and the
command that reproduces it. Speed is measured by the scripts in `benchmarks/`, never by timed tests; `make bench`
runs them, and each prints the date, machine and load of its own run (`benchmarks/runinfo.py`). Every area links
to its history in `benchmarks/results/`: the dated runs behind these figures and the ones before them. A figure
never measured is written "not measured". This page is generated: edit the `<!-- current -->` block of a results
file, then run `python benchmarks/assemble.py`.

Machines:

- **2-core CPU**: x86_64 (AMD EPYC), 2 cores, 24 GiB, no GPU; Python 3.11.7, torch 2.13.0+cpu where torch runs.
  "idle" means nothing else ran; "load N" is the 1-minute load average during the run (other jobs on the cores).
- **2-core CPU (AVX2)**: a 2-core AMD EPYC without AVX-512, slower in fp32 matrix products (about 33 GFLOP/s a core).
- **H200**: one NVIDIA H200 (143,771 MiB), 16 CPU cores; Python 3.12.3, torch 2.11.0+cu130, transformers 5.17.0,
  deepspeed 0.19.8.
"""


@dataclass(frozen=True)
class Current:
    """One area's current figures: the block of a results file."""

    title: str
    """The area's name, the block's ``<!-- current: TITLE -->``."""
    body: str
    """The block's Markdown (its table and any short note), without the markers."""
    source: Path
    """The results file holding the block and the history behind it."""


def blocks(path: Path) -> list[Current]:
    """The ``current`` blocks of one results file, in file order."""
    text = path.read_text(encoding="utf-8")
    found = [Current(m["title"].strip(), m["body"].strip(), path) for m in BLOCK.finditer(text)]
    if text.count("<!-- current") != len(found) or text.count("<!-- /current -->") != len(found):
        raise ValueError(f"{path}: a <!-- current: TITLE --> marker without its <!-- /current --> (or the reverse)")
    return found


def results_files(root: Path = ROOT) -> list[Path]:
    """benchmarks/results/*.md, areas in ``ORDER`` first."""
    return sorted(root.glob("results/*.md"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else 99, p.stem))


def render(root: Path = ROOT) -> str:
    """The whole BENCHMARKS.md."""
    out = [HEADER.strip()]
    for path in results_files(root):
        rel = path.relative_to(root.parent).as_posix()
        for current in blocks(path):
            out.append(f"## {current.title}\n\n{current.body}\n\nHistory: [{rel}]({rel})")
    return "\n\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check that BENCHMARKS.md is up to date")
    args = ap.parse_args()
    page = render()
    if args.check:
        if PAGE.read_text(encoding="utf-8") != page:
            print(f"{PAGE} is not what benchmarks/results/*.md give: run python benchmarks/assemble.py")
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
