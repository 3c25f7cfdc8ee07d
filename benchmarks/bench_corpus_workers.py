"""Benchmark: CPU seconds of one corpus-stats worker per partition, local pool vs dask, interleaved.

Where ``bench_corpus_stats.py`` times whole commands (start-up, client and tail included), this
script isolates the steady state of a worker, which is what decides the throughput on a big
corpus, and stays readable on a shared machine: four single-worker contestants are kept alive
side by side and take turns on the same partitions, so a change of load hits all of them alike.

* ``local, GC on`` / ``local, GC paused``: a spawned process (the local engine's pool), the task
  with Python's cyclic collector left on, or paused as ``partition_aggregate`` does
  (:mod:`tokstudy.analysis.corpus.gc_pause`);
* ``dask, before`` / ``dask, now``: a ``LocalCluster`` worker with the settings of the first
  version (profiler off, no ``MALLOC_TRIM_THRESHOLD_``) and the collector on, or with
  ``LOCAL_CLUSTER_CONFIG``, no memory limit and the collector paused (what ``--engine dask`` runs).

``--concurrent`` runs the contestants at the same time instead of in turn (with ``--only 'local, GC
paused' 'dask, now'``: one pool worker and one dask worker on the two cores, as busy as in a
2-worker command, and a change of load hits both at once).

For each it prints the CPU seconds of the task's thread and of the whole worker process (event
loop, sentencepiece threads) over all rounds, after a warm-up task that loads the tokenizer.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_corpus_workers.py --mib 16 --rounds 4
    TOKSTUDY_DATA=../shared/data python benchmarks/bench_corpus_workers.py --mib 32 --rounds 3 --concurrent \
        --only 'local, GC paused' 'dask, now'
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (sibling script modules)
from bench_corpus_stats import make_corpus  # noqa: E402
from spm_models import train_model  # noqa: E402

from tokstudy.analysis.corpus.counts import (  # noqa: E402
    CorpusStatsSettings,
    aggregate_lines,
    partition_aggregate,
    worker_segmenters,
)
from tokstudy.analysis.corpus.engines import LOCAL_CLUSTER_CONFIG  # noqa: E402
from tokstudy.analysis.corpus.partitions import iter_partition_lines, plan_partitions  # noqa: E402


def task(part, tokenizers: tuple[str, ...], pause_gc: bool) -> float:
    """Count one partition; the CPU seconds of this thread."""
    settings = CorpusStatsSettings()
    start = time.thread_time()
    if pause_gc:
        partition_aggregate(part, tokenizers, settings)
    else:
        segmenters = worker_segmenters(tokenizers, settings.count_lone_boundary)
        lines = iter_partition_lines(part)
        aggregate_lines(lines, segmenters, file_key=part.key, language=part.language, settings=settings)
    return time.thread_time() - start


def process_cpu() -> float:
    return time.process_time()


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mib", type=float, default=16.0, help="corpus size, cut into 2 partitions")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument(
        "--concurrent",
        action="store_true",
        help="run the contestants at the same time (each on the same partitions), so that the cores are as busy as "
        "in a 2-worker command and a change of load hits all of them at once; default: one after another",
    )
    ap.add_argument("--only", nargs="+", help="these contestants only (e.g. 'local, GC paused' 'dask, now')")
    return ap.parse_args()


@contextmanager
def contestants_alive(toks: tuple[str, ...]) -> Iterator[dict[str, tuple[Callable, Callable]]]:
    """Name -> (count a partition: its task thread's CPU seconds, the worker process's CPU seconds so far) of
    the four single-worker contestants, alive for the block."""
    import dask  # the optional dask extra, as `--engine dask` imports it
    from dask.distributed import Client, LocalCluster

    first = {
        "distributed.worker.profile.enabled": False,
        "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    }
    pools = [ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) for _ in range(2)]
    with dask.config.set(first):
        before = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        now = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0)
    clients = [Client(before), Client(now)]
    try:
        yield {
            "local, GC on": (lambda p, pool=pools[0]: pool.submit(task, p, toks, False).result(),
                             lambda pool=pools[0]: pool.submit(process_cpu).result()),
            "local, GC paused": (lambda p, pool=pools[1]: pool.submit(task, p, toks, True).result(),
                                 lambda pool=pools[1]: pool.submit(process_cpu).result()),
            "dask, before": (lambda p, c=clients[0]: c.submit(task, p, toks, False, pure=False).result(),
                             lambda c=clients[0]: sum(c.run(process_cpu).values())),
            "dask, now": (lambda p, c=clients[1]: c.submit(task, p, toks, True, pure=False).result(),
                          lambda c=clients[1]: sum(c.run(process_cpu).values())),
        }  # fmt: skip
    finally:
        for c in clients:
            c.close()
        before.close()
        now.close()
        for pool in pools:
            pool.shutdown()


def run_rounds(contestants: dict, parts, rounds: int, concurrent: bool) -> tuple[dict[str, float], list[float]]:
    """Task-thread CPU seconds of each contestant over ``rounds`` rounds on ``parts``, and the 1-minute load
    average after each round. Each round starts with the next contestant (none always first)."""
    items = list(contestants.items())
    thread = dict.fromkeys(contestants, 0.0)
    loads = []
    for i in range(1, rounds + 1):
        order = items[i % len(items) :] + items[: i % len(items)]
        if concurrent:
            with ThreadPoolExecutor(len(contestants)) as ex:
                runs = {n: ex.submit(lambda run: sum(run(p) for p in parts), r) for n, (r, _) in order}
                for name, fut in runs.items():
                    thread[name] += fut.result()
        else:
            for name, (run, _) in order:
                for p in parts:
                    thread[name] += run(p)
        loads.append(os.getloadavg()[0])
    return thread, loads


def report(args, names: list[str], process: dict[str, float], thread: dict[str, float], loads: list[float]) -> None:
    only = " --only " + " ".join(repr(o) for o in args.only) if args.only else ""
    base_name = "local, GC on" if "local, GC on" in names else names[0]
    print(
        f"\n{runinfo.load_line()}; 1-minute load average during the rounds {min(loads):.1f}-{max(loads):.1f}."
        "\nCommand: `TOKSTUDY_DATA=../shared/data python "
        f"benchmarks/bench_corpus_workers.py --mib {args.mib} --rounds {args.rounds}"
        f"{' --concurrent' if args.concurrent else ''}{only}`\n"
    )
    print(f"| worker | CPU s, task thread | CPU s, worker process | process / {base_name} |")
    print("|---|---:|---:|---:|")
    for name in names:
        print(f"| {name} | {thread[name]:.2f} | {process[name]:.2f} | {process[name] / process[base_name]:.2f} |")


def main() -> None:
    args = parse_args()
    print(runinfo.describe(), flush=True)
    toks = (f"sp32k={train_model(32000)}",)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "mix.txt"
        make_corpus(corpus, int(args.mib * 2**20))
        parts = plan_partitions([(corpus, "mix.txt")], n_partitions=2)
        with contestants_alive(toks) as contestants:
            for run, _ in contestants.values():
                run(parts[0])  # warm-up: the tokenizer is loaded once per worker
            if args.only:
                contestants = {k: v for k, v in contestants.items() if k in args.only}
            start = {name: cpu() for name, (_, cpu) in contestants.items()}
            thread, loads = run_rounds(contestants, parts, args.rounds, args.concurrent)
            process = {name: cpu() - start[name] for name, (_, cpu) in contestants.items()}
    report(args, list(contestants), process, thread, loads)


if __name__ == "__main__":
    main()
