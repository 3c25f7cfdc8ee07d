"""Benchmark: ``tokstudy corpus-stats`` with ``--engine local`` (2 processes) vs ``--engine dask``
(LocalCluster, 2 workers).

For each size, raw_text_large en/fr/de/es/it is repeated into a
plain-text file in a temp dir, cut into byte-range partitions, and the command runs as a subprocess
with the sp32k tokenizer the benchmarks share (``spm_models.py``, cached under ``$TMPDIR/tokstudy_bench_spm``).
A sampling thread (psutil, every 0.2 s) records the peak RSS of the client process (the command
itself) and of each of its descendant processes (the workers), their CPU seconds, and from ``/proc``
the workers' minor page faults and, per thread, CPU seconds, context switches and migrations between
cores (the busiest thread of a worker is the one that ran the tasks: a dask worker's task thread, a
pool worker's main thread). Reports wall time, throughput per worker, peak RSS, and a projection of
the time for 91 GB on N workers from the measured per-worker throughput.

``--engines local dask dask:MALLOC_ARENA_MAX=1`` adds a run of an engine with extra environment
variables (inherited by the workers), for experiments; the ratios to ``local`` are printed per round.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_corpus_stats.py --sizes-mib 25.6 256 --workers 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (sibling script modules)
from spm_models import train_model  # noqa: E402

from tokstudy.data.rawtext import iter_sentences  # noqa: E402
from tokstudy.datalocation import corpus_dir  # noqa: E402

MALBERT_BYTES = 91e9


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def make_corpus(path: Path, n_bytes: int) -> int:
    """raw_text_large en/fr/de/es/it repeated into ``path`` up to ``n_bytes`` (cut at a line end); bytes written."""
    src = [corpus_dir("raw_text_large") / f"{lang}.txt.gz" for lang in ("en", "fr", "de", "es", "it")]
    block = ("\n".join(iter_sentences(src)) + "\n").encode("utf-8")
    written = 0
    with open(path, "wb") as fh:
        while written < n_bytes:
            part = block[: n_bytes - written]
            cut = part.rfind(b"\n") + 1 if len(part) < len(block) else len(part)
            fh.write(part[:cut] or part)
            written += len(part[:cut] or part)
    return written


class PeakRSS(threading.Thread):
    """Peak RSS (MiB) of a process and of each of its descendants, sampled every ``interval`` s."""

    def __init__(self, pid: int, interval: float = 0.2):
        super().__init__(daemon=True)
        import psutil

        self.root = psutil.Process(pid)
        self.interval = interval
        self.peaks: dict[int, float] = {}
        self.cpu: dict[int, float] = {}  # user + system seconds, last sample
        self.minflt: dict[int, int] = {}  # minor page faults, last sample (Linux /proc)
        # per process and thread: CPU seconds, context switches (voluntary, involuntary), migrations, while alive
        # (a dask worker's task thread ends before its process)
        self.threads: dict[int, dict[int, tuple[float, int, int, int]]] = {}
        self.names: dict[int, str] = {}
        self.loads: list[float] = []  # the machine's 1-minute load average, every sample
        self.stop = threading.Event()

    def run(self) -> None:
        import psutil

        while not self.stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            for p in procs:
                try:
                    rss = p.memory_info().rss / 2**20
                    t = p.cpu_times()
                    self.cpu[p.pid] = t.user + t.system
                    self.minflt[p.pid] = _minflt(p.pid)
                    self.threads.setdefault(p.pid, {}).update(_threads(p.pid))
                    self.names.setdefault(p.pid, " ".join(p.cmdline()[:4]))
                except psutil.Error:
                    continue
                self.peaks[p.pid] = max(self.peaks.get(p.pid, 0.0), rss)
            self.loads.append(os.getloadavg()[0])
            time.sleep(self.interval)

    @property
    def client(self) -> float:
        return self.peaks.get(self.root.pid, float("nan"))

    @property
    def cpu_split(self) -> tuple[float, float]:
        """CPU seconds of the client process and of all its descendants (as last sampled)."""
        client = self.cpu.get(self.root.pid, float("nan"))
        return client, sum(v for pid, v in self.cpu.items() if pid != self.root.pid)

    @property
    def workers(self) -> list[float]:
        # the worker processes: descendants that loaded tokstudy's task (the largest ones);
        # multiprocessing's resource tracker and similar helpers stay under ~30 MiB
        return sorted((v for pid, v in self.peaks.items() if pid != self.root.pid and v > 40), reverse=True)


def _minflt(pid: int) -> int:
    """Minor page faults of a process, its exited threads included (``/proc/PID/stat`` field 10)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[7])
    except OSError:
        return 0


def _threads(pid: int) -> dict[int, tuple[float, int, int, int]]:
    """CPU seconds, voluntary and involuntary context switches, migrations between cores of each live thread."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            stat = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines() if ":" in line)
            sched = (task / "sched").read_text() if (task / "sched").exists() else ""
            moved = next((int(x.split(":")[1]) for x in sched.splitlines() if x.startswith("se.nr_migrations")), 0)
            out[int(task.name)] = (
                (int(stat[11]) + int(stat[12])) / tick,
                int(status["voluntary_ctxt_switches"]),
                int(status["nonvoluntary_ctxt_switches"]),
                moved,
            )
        except (OSError, KeyError, ValueError):
            continue
    return out


def run_once(
    engine: str, corpus: Path, model: Path, workers: int, partition_mib: float, resamples: int, extra_env=None
) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "tokstudy",
        "corpus-stats",
        "-t",
        f"sp32k={model}",
        "--corpus",
        str(corpus),
        "--engine",
        engine,
        "--processes",
        str(workers),
        "--partition-mb",
        str(partition_mib),
        "--resamples",
        str(resamples),
        "--no-progress",
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", **(extra_env or {}))
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    mon = PeakRSS(proc.pid)
    mon.start()
    out, err = proc.communicate()
    dt = time.perf_counter() - t
    mon.stop.set()
    mon.join()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err[-3000:]}")
    fert = next((line for line in out.splitlines() if "| all |" in line), "")
    cpu_client, cpu_workers = mon.cpu_split
    worker_pids = [pid for pid in mon.threads if pid != mon.root.pid]
    threads = [t for pid in worker_pids for t in mon.threads[pid].values()]
    faults = [sum(mon.minflt.get(pid, 0) for pid in worker_pids), *(sum(t[k] for t in threads) for k in (1, 2, 3))]
    # the busiest thread of each worker process: the one that ran the tasks
    busiest = sum(max(t[0] for t in mon.threads[pid].values()) for pid in worker_pids if mon.threads[pid])
    return {
        "engine": engine,
        "seconds": dt,
        "client_mib": mon.client,
        "workers_mib": mon.workers[:workers],
        "cpu_client": cpu_client,
        "cpu_workers": cpu_workers,
        "faults_workers": faults,
        "cpu_task_threads": busiest,
        "load": sum(mon.loads) / len(mon.loads) if mon.loads else float("nan"),
        "all_row": fert,
        "stdout": out,
    }


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes-mib", type=float, nargs="+", default=[25.6, 256.0], help="corpus sizes (MiB)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partition-mib", type=float, default=16.0)
    ap.add_argument("--resamples", type=int, default=200)
    ap.add_argument(
        "--engines",
        nargs="+",
        default=["local", "dask"],
        help="engines in the order run; ENGINE:KEY=VALUE,... adds environment variables to that run's command",
    )
    ap.add_argument("--rounds", type=int, default=1, help="rounds per size, engines alternating within each")
    return ap.parse_args()


def run_engines(args, model: Path) -> list[dict]:
    """One :func:`run_once` per size, round and engine, each printed as it ends (``#`` lines)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes_mib:
            corpus = Path(tmp) / "mix.txt"  # en, fr, de, es, it: language "mix"
            n = make_corpus(corpus, int(size * 2**20))
            for engine in [e for _ in range(args.rounds) for e in args.engines]:
                name, _, spec = engine.partition(":")  # e.g. dask:MALLOC_ARENA_MAX=1 (an experiment's environment)
                extra = dict(kv.split("=", 1) for kv in spec.split(",") if kv)
                r = run_once(name, corpus, model, args.workers, args.partition_mib, args.resamples, extra)
                r.update(size_mib=n / 2**20, bytes=n, engine=engine)
                rows.append(r)
                print(progress_line(r), flush=True)
            corpus.unlink()
    return rows


def progress_line(r: dict) -> str:
    return (
        f"# {r['engine']} {r['bytes'] / 2**20:.1f} MiB: {r['seconds']:.1f} s, client {r['client_mib']:.0f} MiB, "
        f"workers {[round(w) for w in r['workers_mib']]} MiB, CPU s client {r['cpu_client']:.1f} "
        f"workers {r['cpu_workers']:.1f} (task threads {r['cpu_task_threads']:.1f}); workers' minor "
        f"faults {r['faults_workers'][0]:,}, context "
        f"switches {r['faults_workers'][1]:,} voluntary {r['faults_workers'][2]:,} involuntary, "
        f"{r['faults_workers'][3]:,} migrations; load "
        f"{r['load']:.1f}\n# {r['all_row']}"
    )


def print_table(rows: list[dict], workers: int) -> None:
    print(
        "| corpus | engine | wall (s) | MiB/s | MiB/s per worker | CPU s client | CPU s workers "
        "| peak RSS client (MiB) "
        "| peak RSS per worker (MiB) | load avg during the run | CPU s task threads | workers' minor faults "
        "| workers' context switches vol / invol |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|")
    for r in rows:
        rate = r["size_mib"] / r["seconds"]
        print(
            f"| {r['size_mib']:.1f} MiB | {r['engine']} | {r['seconds']:.1f} | {rate:.2f} "
            f"| {rate / workers:.2f} | "
            f"{r['cpu_client']:.1f} | {r['cpu_workers']:.1f} | {r['client_mib']:.0f} | "
            f"{', '.join(f'{w:.0f}' for w in r['workers_mib'])} | {r['load']:.1f} | {r['cpu_task_threads']:.1f} "
            f"| {r['faults_workers'][0]:,} | {r['faults_workers'][1]:,} / {r['faults_workers'][2]:,} |"
        )


def print_ratios(rows: list[dict], args) -> None:
    """Each other engine / local, for each size and round (engines run back to back within a round)."""
    for size in args.sizes_mib:
        of_size = [r for r in rows if abs(r["size_mib"] - size) < 0.1]
        for other in [e for e in args.engines if e != "local"]:
            for local, dask in zip(
                [r for r in of_size if r["engine"] == "local"], [r for r in of_size if r["engine"] == other]
            ):
                cpu = (dask["cpu_client"] + dask["cpu_workers"]) / (local["cpu_client"] + local["cpu_workers"])
                print(
                    f"\n{other} / local at {size} MiB: wall {dask['seconds'] / local['seconds']:.2f}x, "
                    f"CPU seconds (client + workers) {cpu:.2f}x, workers' CPU seconds "
                    f"{dask['cpu_workers'] / local['cpu_workers']:.2f}x"
                )


def print_projections(rows: list[dict], workers: int) -> None:
    """The time for mALBERT's 91 GB on 16 / 64 / 256 workers, from the largest corpus's runs."""
    big = [r for r in rows if r["size_mib"] == max(x["size_mib"] for x in rows)]
    for r in big:
        per_worker = r["bytes"] / r["seconds"] / workers
        proj = ", ".join(f"{n} workers {_duration(MALBERT_BYTES / (per_worker * n))}" for n in (16, 64, 256))
        print(
            f"\nProjection (from the measured {per_worker / 2**20:.2f} MiB/s per worker, {r['engine']}, assuming "
            f"linear scaling): 91 GB on {proj}."
        )
        per_cpu = r["bytes"] / r["cpu_workers"]  # bytes per CPU-second of a worker: a worker with a core of its own
        proj = ", ".join(f"{n} workers {_duration(MALBERT_BYTES / (per_cpu * n))}" for n in (16, 64, 256))
        print(
            f"Projection from CPU time ({per_cpu / 2**20:.2f} MiB per CPU-second of a worker, {r['engine']}; "
            f"one core per worker, CPU-bound, linear scaling): 91 GB on {proj}."
        )


def main() -> None:
    args = parse_args()
    print(runinfo.describe(), flush=True)
    rows = run_engines(args, train_model(32000))
    print(f"\n{runinfo.load_line()}")
    print(
        f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_corpus_stats.py --sizes-mib "
        f"{' '.join(str(s) for s in args.sizes_mib)} --workers {args.workers} --partition-mib {args.partition_mib} "
        f"--rounds {args.rounds}`\n"
    )
    print_table(rows, args.workers)
    print_ratios(rows, args)
    print_projections(rows, args.workers)
    for r in rows:
        print(f"\n{r['engine']} {r['size_mib']:.1f} MiB output:\n{r['stdout']}")


if __name__ == "__main__":
    main()
