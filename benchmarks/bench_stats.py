"""Benchmark: ``tokstudy stats`` end to end vs the raw SentencePiece floor vs a naive per-word loop.

Default mode, all in one run, on the three CoNLL-2003 splits (~300k words) and three
SentencePiece unigram vocabularies (8k / 16k / 32k, trained once on raw text and
cached under ``$TMPDIR/tokstudy_bench_spm``):

* **floor**: ``SentencePieceProcessor.encode(words)`` (one batch call, ids) per tokenizer,
  on the already-read words: the least any per-word count can cost;
* **tokstudy stats**: ``tokstudy stats -d conll2003:train -d conll2003:dev -d conll2003:test
  -t ... (3 tokenizers)``, in process, everything included (reading the three files,
  building the table, Table 4 + summaries + breakdowns with 1,000 bootstrap resamples),
  plus a breakdown of its phases;
* **naive**: a Python loop calling ``encode(word)`` once per word and accumulating NE /
  non-NE sums (no CIs).

``--intrinsic`` mode: the cost of the intrinsic metrics (compression, Shannon entropy, Rényi
efficiency, vocabulary use) in ``tokstudy stats``: read + table + statistics with and without them,
interleaved rounds, wall and CPU time, in process; then the command itself in fresh processes (the
issue's "end to end"); then the statistics phase alone.

Text bigger than memory is ``tokstudy corpus-stats``, measured by ``bench_corpus_stats.py``.

This file holds the default mode and the command line; ``--intrinsic`` is ``stats_intrinsic.py``, and the three
tokenizers (shared with other benchmarks) ``spm_models.py``.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py [--repeat 3] [--intrinsic]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (sibling script modules, as below)
import sentencepiece as spm  # noqa: E402
from spm_models import VOCABS, tokenizer_specs, train_models  # noqa: E402 (bench_attribute & co import these here)
from stats_intrinsic import bench_intrinsic  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from tokstudy.analysis.stats import bootstrap, table_statistics  # noqa: E402
from tokstudy.analysis.table import segmentation_table  # noqa: E402
from tokstudy.cli import main as tokstudy_main  # noqa: E402
from tokstudy.inputs import load_datasets, load_tokenizers  # noqa: E402

__all__ = ["VOCABS", "train_models"]  # what other benchmarks import from here: the shared models
CONLL_SPLITS = ("conll2003:train", "conll2003:dev", "conll2003:test")


def timed(fn, repeat: int):
    """``(best, median, last result)`` of ``repeat`` calls of ``fn``."""
    times = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), result


def interleaved(measures: dict, repeat: int) -> dict[str, list[float]]:
    """Seconds of each measure per round. The machine is shared, so each round measures every variant
    under similar load, and the best round of each is compared."""
    times = {k: [] for k in measures}
    for _ in range(repeat):
        for k, fn in measures.items():
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return times


@dataclass
class StatsPhases:
    """The phases of ``tokstudy stats``, timed one at a time; each keeps its result for the next."""

    tokenizers: list
    resamples: int
    datasets: list = field(default_factory=list)
    table: object = None

    def read(self) -> None:
        self.datasets = load_datasets(list(CONLL_SPLITS))

    def build(self) -> None:
        self.table = segmentation_table(self.datasets, self.tokenizers, progress=False)

    def statistics(self):
        bootstrap._CACHE.clear()
        return table_statistics(self.table, bootstrap=bootstrap.BootstrapSettings(self.resamples))


def stats_command(argv: list[str], *, fresh_resamples: bool) -> None:
    """``tokstudy stats`` in process, output dropped."""
    if fresh_resamples:
        bootstrap._CACHE.clear()  # a fresh process would draw the resample weights too
    with contextlib.redirect_stdout(io.StringIO()):
        assert tokstudy_main(argv) == 0


def stats_argv(models: dict[int, Path], resamples: int) -> list[str]:
    return (
        ["stats"]
        + [x for s in CONLL_SPLITS for x in ("-d", s)]
        + [x for spec in tokenizer_specs(models) for x in ("-t", spec)]
        + ["--no-progress", "--resamples", str(resamples)]
    )


def naive_counts(procs, words: list[str], ne: list[bool]) -> list[dict]:
    """Pieces and words of NE and non-NE words, one ``encode(word)`` call per word: the loop to beat."""
    out = []
    for p in procs:
        sums = {True: [0, 0], False: [0, 0]}
        for w, flag in zip(words, ne):
            sums[flag][0] += len(p.encode(w))
            sums[flag][1] += 1
        out.append(sums)
    return out


def bench_default(args) -> str:
    """The default mode: the floor, ``tokstudy stats`` end to end and its phases, the naive loop."""
    models = train_models()
    datasets = load_datasets(list(CONLL_SPLITS))
    words = [w for d in datasets for s in d for w in s.words]
    ne = [t != "O" for d in datasets for s in d for t in s.tags]
    procs = [spm.SentencePieceProcessor(model_file=str(models[v])) for v in VOCABS]
    print(f"{len(words):,} words, {sum(len(d) for d in datasets):,} sentences", file=sys.stderr)
    phases = StatsPhases(load_tokenizers(tokenizer_specs(models)), args.resamples)
    measures = {
        "floor": lambda: [p.encode(words) for p in procs],
        "e2e": functools.partial(stats_command, stats_argv(models, args.resamples), fresh_resamples=True),
        "e2e0": functools.partial(stats_command, stats_argv(models, 0), fresh_resamples=False),
        "read": phases.read,
        "table": phases.build,
        "stats": phases.statistics,
    }
    times = interleaved(measures, args.repeat)
    naive = timed(lambda: naive_counts(procs, words, ne), 1)
    return default_report(args, words, phases.table, times, naive)


def default_report(args, words: list[str], table, times: dict[str, list[float]], naive) -> str:
    """The default mode's tables: each measure against the floor, then the phases."""
    best = {k: min(v) for k, v in times.items()}
    med = {k: statistics.median(v) for k, v in times.items()}
    n_min, n_med, _ = naive
    f_min = best["floor"]
    rows = [
        ("floor: `encode(words)` batch call x 3 tokenizers", best["floor"], med["floor"]),
        (
            f"`tokstudy stats` end to end (read 3 files, table, stats, {args.resamples} resamples)",
            best["e2e"],
            med["e2e"],
        ),
        ("`tokstudy stats --resamples 0` end to end (same, no confidence intervals)", best["e2e0"], med["e2e0"]),
        ("naive per-word loop (`encode(w)` per word) x 3", n_min, n_med),
    ]
    r_min, t_min, s_min = best["read"], best["table"], best["stats"]
    lines = [
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}.",
        f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py --repeat {args.repeat}`",
        "",
        f"CoNLL-2003 train+dev+test: {len(words):,} words, {len(table.types):,} distinct; "
        f"SentencePiece unigram {', '.join(f'{v // 1000}k' for v in VOCABS)}.",
        "",
        "| what | best of runs (s) | median (s) | vs floor |",
        "|---|---:|---:|---:|",
    ]
    for name, lo, median in rows:
        lines.append(f"| {name} | {lo:.2f} | {median:.2f} | {lo / f_min:.2f}x |")
    lines += [
        "",
        "Phases of `tokstudy stats` (best of runs, measured separately):",
        "",
        "| phase | s |",
        "|---|---:|",
        f"| read the three CoNLL files (tokstudy.data readers) | {r_min:.2f} |",
        f"| build the table: word columns + 3 tokenizers (one `segment` call each, distinct words) | {t_min:.2f} |",
        f"| statistics: Table 4, summaries, by type/position, {args.resamples} resamples, 3 tokenizers | {s_min:.2f} |",
        f"| statistics without reading (table + stats) vs floor | {(t_min + s_min) / f_min:.2f}x |",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (best and median reported)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples in `tokstudy stats`")
    ap.add_argument(
        "--intrinsic", action="store_true", help="cost of the intrinsic metrics in `tokstudy stats` instead"
    )
    ap.add_argument(
        "--one-blas-thread",
        action="store_true",
        help="limit BLAS to one thread (CPU times stable under load; the default measures as users run it)",
    )
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)
    limit = threadpool_limits(limits=1, user_api="blas") if args.one_blas_thread else contextlib.nullcontext()
    with limit:
        if args.intrinsic:
            print(bench_intrinsic(args, list(CONLL_SPLITS)))
        else:
            print(bench_default(args))
    print(runinfo.load_line())


if __name__ == "__main__":
    main()
