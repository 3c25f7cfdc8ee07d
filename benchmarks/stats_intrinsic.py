"""``bench_stats.py --intrinsic``: what the intrinsic metrics (compression, Shannon entropy, Rényi
efficiency, vocabulary use) add to ``tokstudy stats``.

Three measures, in this order, each comparing the statistics with and without them:

1. in process: read + table + every statistic, interleaved rounds, wall and CPU time;
2. the command itself in fresh processes (the issue's "end to end": imports, reading, printing), the
   metrics switched off by patching ``table_statistics``' ``intrinsic`` default;
3. the statistics phase alone on one built table: their own cost, less diluted by noise.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from spm_models import tokenizer_specs, train_models

from tokstudy.analysis.stats import bootstrap, table_statistics
from tokstudy.analysis.table import segmentation_table
from tokstudy.inputs import load_datasets, load_tokenizers

ROOT = Path(__file__).resolve().parent.parent
# `tokstudy stats` with the intrinsic metrics on (argv[1] == "with") or off, in a fresh process
FRESH_STATS = (
    "import sys\n"
    "from tokstudy.analysis import stats\n"
    "stats.table_statistics.__kwdefaults__['intrinsic'] = sys.argv[1] == 'with'\n"
    "from tokstudy.cli import main\n"
    "sys.exit(main(sys.argv[2:]))"
)
TABLE_HEAD = [
    "| variant | wall best (s) | wall median (s) | CPU best (s) | CPU median (s) |",
    "|---|---:|---:|---:|---:|",
]


def bench_intrinsic(args, specs) -> str:
    """The report of the three measures on the datasets ``specs`` and the three benchmark tokenizers."""
    models = train_models()
    segs = load_tokenizers(tokenizer_specs(models))
    lines, cpu = in_process(args, specs, segs)
    lines += fresh_processes(args, specs, models)
    lines.append(phase_alone(args, specs, segs, min(cpu[False])))
    return "\n".join(lines)


def in_process(args, specs, segs) -> tuple[list[str], dict[bool, list[float]]]:
    """Read + table + every statistic without and with the metrics (printing excluded); the report's
    lines and the CPU seconds of each round."""

    def run(intrinsic: bool):
        bootstrap._CACHE.clear()  # a fresh process draws the resample weights too
        table = segmentation_table(load_datasets(specs), segs, progress=False)
        return table_statistics(table, bootstrap=bootstrap.BootstrapSettings(args.resamples), intrinsic=intrinsic)

    run(True)  # warm imports
    wall = {False: [], True: []}
    cpu = {False: [], True: []}
    for _ in range(args.repeat):
        for flag in (False, True):
            t, c = time.perf_counter(), time.process_time()
            run(flag)
            wall[flag].append(time.perf_counter() - t)
            cpu[flag].append(time.process_time() - c)
    lines = [
        f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py --intrinsic --repeat {args.repeat}`",
        "",
        "CoNLL-2003 train+dev+test, SentencePiece unigram 8k/16k/32k, "
        f"{args.resamples} resamples; read + table + every statistic (printing excluded).",
        "",
        *TABLE_HEAD,
    ]
    names = ("without the intrinsic metrics", "with them (5 fields x NE/non-NE/all x 3 tokenizers)")
    return lines + comparison(names, wall, cpu, added="Added"), cpu


def fresh_processes(args, specs, models) -> list[str]:
    """``tokstudy stats`` as a user runs it (imports, reading, table, statistics, printing), with the
    metrics and with them switched off by a patched default; the report's lines."""
    cli = ["stats", *[x for sp in specs for x in ("-d", sp)], "--no-progress"]
    cli += [x for spec in tokenizer_specs(models) for x in ("-t", spec)]
    cli += ["--resamples", str(args.resamples)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    wall = {False: [], True: []}
    cpu = {False: [], True: []}
    for _ in range(args.repeat):
        for flag in (False, True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            argv = [sys.executable, "-c", FRESH_STATS, "with" if flag else "without", *cli]
            subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
            wall[flag].append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[flag].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    lines = [
        "",
        "`tokstudy stats` itself, fresh processes (the command as a user runs it, output included; without = the "
        "same command with `table_statistics`' `intrinsic` default patched to False):",
        "",
        *TABLE_HEAD,
    ]
    names = ("`tokstudy stats` without", "`tokstudy stats` with")
    return lines + comparison(names, wall, cpu, added="Added to `tokstudy stats`")


def phase_alone(args, specs, segs, cpu_without: float) -> str:
    """``table_statistics`` on one built table, CPU, without and with the metrics; the report's line, the
    difference also as a share of ``cpu_without`` (the end-to-end CPU best without them)."""
    table = segmentation_table(load_datasets(specs), segs, progress=False)
    phase = {False: [], True: []}
    for _ in range(3 * args.repeat):
        for flag in (False, True):
            bootstrap._CACHE.clear()
            c = time.process_time()
            table_statistics(table, bootstrap=bootstrap.BootstrapSettings(args.resamples), intrinsic=flag)
            phase[flag].append(time.process_time() - c)
    added = min(phase[True]) - min(phase[False])
    return (
        f"\nStatistics phase alone (`table_statistics` on a built table, CPU, best of {3 * args.repeat}): "
        f"{min(phase[False]):.3f} s without, {min(phase[True]):.3f} s with: {added:+.3f} s, "
        f"{100 * added / cpu_without:+.1f} % of the end-to-end CPU best without."
    )


def comparison(names: tuple[str, str], wall: dict, cpu: dict, *, added: str) -> list[str]:
    """Rows ``names`` (without, with) of the wall/CPU table, then what the metrics add, best vs best and
    median vs median."""
    lines = [
        f"| {name} | {min(wall[flag]):.2f} | {statistics.median(wall[flag]):.2f} | "
        f"{min(cpu[flag]):.2f} | {statistics.median(cpu[flag]):.2f} |"
        for flag, name in zip((False, True), names)
    ]
    for label, d in (("wall", wall), ("CPU", cpu)):
        lines.append(
            f"\n{added} ({label}, best vs best): {100 * (min(d[True]) / min(d[False]) - 1):+.1f} %; "
            f"(median vs median): {100 * (statistics.median(d[True]) / statistics.median(d[False]) - 1):+.1f} %."
        )
    return lines
