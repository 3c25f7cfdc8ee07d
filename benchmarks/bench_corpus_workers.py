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
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (a sibling script module)


def task(part, tokenizers: tuple[str, ...], pause_gc: bool) -> float:
    """Count one partition; the CPU seconds of this thread."""
    from tokstudy.analysis.corpus.counts import (
        CorpusStatsSettings,
        aggregate_lines,
        partition_aggregate,
        worker_segmenters,
    )
    from tokstudy.analysis.corpus.partitions import iter_partition_lines

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


def main() -> None:
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
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)

    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    import dask
    from bench_corpus_stats import make_corpus, tokenizer
    from dask.distributed import Client, LocalCluster

    from tokstudy.analysis.corpus.engines import LOCAL_CLUSTER_CONFIG
    from tokstudy.analysis.corpus.partitions import plan_partitions

    model = tokenizer(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    toks = (f"sp32k={model}",)
    first = {
        "distributed.worker.profile.enabled": False,
        "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    }
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "mix.txt"
        make_corpus(corpus, int(args.mib * 2**20))
        parts = plan_partitions([(corpus, "mix.txt")], n_partitions=2)
        pools = [ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) for _ in range(2)]
        with dask.config.set(first):
            before = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            now = LocalCluster(
                n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
            )
        clients = [Client(before), Client(now)]
        contestants = {
            "local, GC on": (lambda p, pool=pools[0]: pool.submit(task, p, toks, False).result(),
                             lambda pool=pools[0]: pool.submit(process_cpu).result()),
            "local, GC paused": (lambda p, pool=pools[1]: pool.submit(task, p, toks, True).result(),
                                 lambda pool=pools[1]: pool.submit(process_cpu).result()),
            "dask, before": (lambda p, c=clients[0]: c.submit(task, p, toks, False, pure=False).result(),
                             lambda c=clients[0]: sum(c.run(process_cpu).values())),
            "dask, now": (lambda p, c=clients[1]: c.submit(task, p, toks, True, pure=False).result(),
                          lambda c=clients[1]: sum(c.run(process_cpu).values())),
        }  # fmt: skip
        try:
            for run, _ in contestants.values():
                run(parts[0])  # warm-up: the tokenizer is loaded once per worker
            if args.only:
                contestants = {k: v for k, v in contestants.items() if k in args.only}
            rotation = [0]

            def order():  # the contestants, starting one later each round (none always first)
                items = list(contestants.items())
                rotation[0] += 1
                k = rotation[0] % len(items)
                return items[k:] + items[:k]

            start = {name: cpu() for name, (_, cpu) in contestants.items()}
            thread = dict.fromkeys(contestants, 0.0)
            loads = []
            for _ in range(args.rounds):
                if args.concurrent:
                    from concurrent.futures import ThreadPoolExecutor

                    with ThreadPoolExecutor(len(contestants)) as ex:
                        runs = {n: ex.submit(lambda run: sum(run(p) for p in parts), r) for n, (r, _) in order()}
                        for name, fut in runs.items():
                            thread[name] += fut.result()
                else:
                    for name, (run, _) in order():
                        for p in parts:
                            thread[name] += run(p)
                loads.append(os.getloadavg()[0])
            end = {name: cpu() for name, (_, cpu) in contestants.items()}
        finally:
            for c in clients:
                c.close()
            before.close()
            now.close()
            for pool in pools:
                pool.shutdown()
    only = " --only " + " ".join(repr(o) for o in args.only) if args.only else ""
    base_name = "local, GC on" if "local, GC on" in contestants else next(iter(contestants))
    print(
        f"\n{runinfo.load_line()}; 1-minute load average during the rounds {min(loads):.1f}-{max(loads):.1f}."
        "\nCommand: `TOKSTUDY_DATA=../shared/data python "
        f"benchmarks/bench_corpus_workers.py --mib {args.mib} --rounds {args.rounds}"
        f"{' --concurrent' if args.concurrent else ''}{only}`\n"
    )
    print(f"| worker | CPU s, task thread | CPU s, worker process | process / {base_name} |")
    print("|---|---:|---:|---:|")
    base = end[base_name] - start[base_name]
    for name in contestants:
        proc = end[name] - start[name]
        print(f"| {name} | {thread[name]:.2f} | {proc:.2f} | {proc / base:.2f} |")


if __name__ == "__main__":
    main()
