"""Assemble BENCHMARKS.md from the per-part results in benchmarks/results/*.md.

Each part's benchmark script writes its own results file (date, machine, command, figures);
this keeps BENCHMARKS.md one readable page without parts editing the same file.

    python benchmarks/assemble.py
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent
ORDER = ["data", "tokenizers", "analysis", "corpus", "prepare", "pretrain", "finetune", "study", "app"]

HEADER = """# Benchmarks

Speed is measured by the scripts in `benchmarks/`, never by timed tests. Each section gives the date, the
machine and the command that reproduces it; `make bench` runs them all. Unless a section says otherwise the
machine is a 2-core x86_64 CPU with 24 GiB and no GPU (Python 3.11.7). Several figures were taken while other
jobs shared those 2 cores; each section says so where it applies, and CPU-time ratios are given where wall
times were noisy. GPU figures (the pre-trainer's) were measured on one NVIDIA H200 on 2026-11-26; the sections
say which GPU modes are still not measured.
"""


def _demote_headings(text: str) -> str:
    """One more ``#`` on every Markdown heading outside code fences, so each part is a section here."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append("#" + line if line.startswith("#") and not fenced else line)
    return "\n".join(out)


def main() -> None:
    parts = sorted(ROOT.glob("results/*.md"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else 99, p.stem))
    out = [HEADER]
    for p in parts:
        text = p.read_text(encoding="utf-8").strip()
        text = _demote_headings(text)
        out.append(f"{text}\n\n*(source: `benchmarks/results/{p.name}`)*")
    (ROOT.parent / "BENCHMARKS.md").write_text("\n\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
