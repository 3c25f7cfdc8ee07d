"""Run every benchmark script (each prints its figures with the date, machine and load of its run), then
assemble BENCHMARKS.md from the current blocks of benchmarks/results/*.md.

A run's figures are recorded by hand: a dated section in its area's results file and, where they replace the
latest figure, that file's ``<!-- current -->`` block (see benchmarks/assemble.py).

make bench          # or: python benchmarks/run_all.py [--only tokenizers stats ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SCRIPTS = [
    "bench_readers",
    "bench_tokenizer_training",
    "bench_stats",
    "bench_languages",
    "bench_corpus_stats",
    "bench_prepare",
    "bench_pretrain",
    "bench_finetune",
    "bench_app",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", help="script names without .py (default: all)")
    args = ap.parse_args()
    failed = []
    for name in args.only or SCRIPTS:
        script = ROOT / f"{name}.py"
        if not script.is_file():
            print(f"skip {name}: not present")
            continue
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, str(script)]).returncode != 0:
            failed.append(name)
    subprocess.run([sys.executable, str(ROOT / "assemble.py")], check=True)
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
