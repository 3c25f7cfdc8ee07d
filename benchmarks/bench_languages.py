#!/usr/bin/env python3
"""Benchmark: Table 4 per language, ``tokstudy stats`` on the 31 language sets x 3 tokenizers.

The command timed, end to end in a fresh process (reading the 31 files, the table, Table 4 with the summaries
and breakdowns, Table 4 per language, the unknown-piece warnings, the CSV and the figure; 1,000 resamples)::

    tokstudy stats -d 'masakhaner2:*:test' -d 'multiconer2022:*:dev' -t sp-unigram-4000 -t sp-unigram-8000 \\
        -t sp-unigram-16000 --no-progress --languages-csv languages.csv --languages-figure languages

The 20 MasakhaNER 2.0 test sets and the 11 MultiCoNER 2022 dev sets. The tokenizers are three SentencePiece
unigram vocabularies (4k, 8k, 16k) trained on a seeded sample of 100,000 sentences of the multilingual raw text
(``raw_text``) by ``tokstudy train-tokenizer``, as the README's recipe does: untimed setup, cached under
``$TMPDIR/tokstudy_bench_languages``. Then the same work in process, phase by phase (one run).

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_languages.py [--repeat 3]

Target: <= 60 s on 2 cores. Nothing is asserted: speed belongs here, not in the tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ("masakhaner2:*:test", "multiconer2022:*:dev")
VOCABS = (4000, 8000, 16000)


def tokenizers(cache: Path) -> list[Path]:
    """The three vocabularies, trained once by ``tokstudy train-tokenizer`` (untimed)."""
    dirs = [cache / f"sp-unigram-{v}" for v in VOCABS]
    if not all(d.is_dir() for d in dirs):
        t0 = time.perf_counter()
        command = [sys.executable, "-m", "tokstudy", "train-tokenizer", "--input", "raw_text", "--vocab-size"]
        command += [str(v) for v in VOCABS] + ["--sample-size", "100000", "--output", str(cache)]
        subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        print(f"setup (untimed): trained {len(dirs)} tokenizers in {time.perf_counter() - t0:.1f} s", flush=True)
    return dirs


def end_to_end(toks: list[Path], out: Path, repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of the command in a fresh process, ``repeat`` times."""
    command = [sys.executable, "-m", "tokstudy", "stats"]
    for d in DATASETS:
        command += ["-d", d]
    for t in toks:
        command += ["-t", str(t)]
    command += ["--no-progress", "--languages-csv", str(out / "languages.csv")]
    command += ["--languages-figure", str(out / "languages")]
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def phases(toks: list[Path], out: Path) -> list[tuple[str, float]]:
    """The command's work in process, phase by phase (one run)."""
    from tokstudy.analysis.stats import table_statistics
    from tokstudy.analysis.stats.per_language import language_coverage, language_table
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.inputs import load_datasets, load_tokenizers
    from tokstudy.report.per_language import languages_markdown, plot_languages

    done, t = [], time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        done.append((name, now - t))
        t = now

    datasets = load_datasets(list(DATASETS))
    lap(f"read the {len(datasets)} files")
    segs = load_tokenizers([str(p) for p in toks])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = segmentation_table(datasets, segs, progress=False)
    lap(f"the table ({len(table):,} words, {table.n_sentences:,} sentences), 3 tokenizers, coverage warnings")
    table_statistics(table)
    lap("Table 4, summaries, breakdowns, intrinsic metrics (1,000 resamples)")
    res = language_table(table)
    lap("Table 4 per language (1,000 resamples)")
    language_coverage(table)
    lap("unknown-piece warnings by language")
    languages_markdown(res)
    plot_languages(res, out / "languages_in_process")
    lap("Markdown and the figure (PNG + SVG)")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(runinfo.describe(), flush=True)
    toks = tokenizers(Path(tempfile.gettempdir()) / "tokstudy_bench_languages")
    out = Path(tempfile.mkdtemp(prefix="bench_languages_"))
    walls, cpus = end_to_end(toks, out, args.repeat)
    print(f"\n`tokstudy stats` on {' + '.join(DATASETS)} (31 language sets) x {len(toks)} tokenizers, fresh process\n")
    print("| runs | wall best (s) | wall median (s) | CPU best (s) | CPU median (s) |")
    print("|---:|---:|---:|---:|---:|")
    print(
        f"| {len(walls)} | {min(walls):.2f} | {statistics.median(walls):.2f} | {min(cpus):.2f} | "
        f"{statistics.median(cpus):.2f} |"
    )
    print("\nPhases, in process (one run)\n\n| phase | s |\n|---|---:|")
    for name, seconds in phases(toks, out):
        print(f"| {name} | {seconds:.2f} |")
    print(f"\nthreads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; outputs in {out}")


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
