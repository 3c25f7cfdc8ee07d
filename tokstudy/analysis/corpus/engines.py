"""Where corpus statistics run: a local process pool, or a ``dask.distributed`` cluster.

Both engines run the same task, :func:`~tokstudy.analysis.corpus.counts.partition_aggregate`, on
the same :class:`~tokstudy.analysis.corpus.partitions.Partition` list, and add the partial sums as they
come back (in completion order, which does not matter: sums are exact and commutative). The
client (this process) lists files and sizes, never opens the corpus, and keeps one running
aggregate, so its memory does not grow with the corpus.

* ``local``: ``processes`` spawned worker processes (default: the machine's cores); each loads
  the tokenizers once (a per-process cache) and reads its partitions itself.
* ``dask``: a running scheduler (``scheduler="tcp://host:8786"``, e.g. started by dask-jobqueue
  on SLURM, see docs/corpus_stats.md) or, without an address, a ``LocalCluster`` of
  ``processes`` single-threaded workers. Tokenizer and corpus paths must be readable by the
  workers (a shared file system). Dask re-runs the task of a worker that dies; the task is a
  pure function of its partition, so the numbers stay the same. ``dask`` is imported only here,
  only for this engine (``pip install 'tokstudy[dask]'``).

>>> # from tokstudy.analysis.corpus.engines import EngineSettings, corpus_stats
>>> # res = corpus_stats("raw_text_large", ["runs/tok/sp-32000"], engine=EngineSettings("dask", scheduler="tcp://head:8786"))
>>> # res.figures["sp-32000"]["en"].fertility
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from tokstudy.analysis.corpus.counts import CorpusAggregate, CorpusStatsSettings, partition_aggregate, worker_segmenters
from tokstudy.analysis.corpus.figures import CorpusStats, summarize
from tokstudy.analysis.corpus.partitions import DEFAULT_PARTITION_BYTES, Partition, corpus_files, plan_partitions
from tokstudy.clusteraddress import ClusterAddress, connect
from tokstudy.errors import DataFormatError, UsageError

ENGINES = ("local", "dask")


@dataclass(frozen=True)
class EngineSettings:
    """Which engine runs the partitions, and how the corpus is cut.

    Attributes:
        engine: ``"local"`` (process pool) or ``"dask"``.
        processes: local worker processes, or workers of the ``LocalCluster`` when ``engine="dask"``
            has no scheduler (default: ``os.cpu_count()``); 1 with ``local`` runs in this process.
        scheduler: address of a running dask scheduler (``tcp://host:8786``); only with ``dask``. Its form is
            checked here (:class:`~tokstudy.clusteraddress.ClusterAddress`, as ``tokstudy study --cluster``).
        connect_timeout: seconds to wait for that scheduler before stopping with one line.
        partitions: cut the corpus into this many partitions (``.gz`` files are never split).
        partition_bytes: otherwise, the size of a byte-range partition of a plain-text file.
        pin_workers: bind each worker of a ``LocalCluster`` (no ``scheduler``) to a core of its own, when there
            are at least as many cores as workers (Linux); turn it off on a machine shared with other jobs.
            Measured at 1 GiB on 2 cores: 0.88x the wall time of unpinned workers (benchmarks/results/corpus.md).
    """

    engine: str = "local"
    processes: int | None = None
    scheduler: str | None = None
    connect_timeout: float = 10.0
    partitions: int | None = None
    partition_bytes: int = DEFAULT_PARTITION_BYTES
    pin_workers: bool = True

    def __post_init__(self) -> None:
        # UsageError: a ValueError that the CLI reports as a bad option, in one line
        if self.engine not in ENGINES:
            raise UsageError(f"engine must be one of {ENGINES}, got {self.engine!r}")
        if self.scheduler is not None:
            _check_scheduler(self.scheduler)
            if self.engine != "dask":
                raise UsageError(
                    "a scheduler address (--scheduler) needs the dask engine (engine='dask', --engine dask)"
                )
        if self.processes is not None and self.processes < 1:
            raise UsageError(f"processes must be >= 1, got {self.processes}")
        if self.connect_timeout <= 0:
            raise UsageError(f"connect_timeout must be > 0 seconds, got {self.connect_timeout}")

    @property
    def workers(self) -> int:
        return self.processes or os.cpu_count() or 1


def _check_scheduler(address: str) -> None:
    """A running scheduler's address, well-formed (``local:N`` is the study's: here, ``processes``)."""
    try:
        parsed = ClusterAddress.parse(address)
    except ValueError as exc:
        raise UsageError(f"scheduler: {exc}") from None
    if parsed.workers is not None:
        raise UsageError(
            f"scheduler: {address!r} is no scheduler address (SCHEME://HOST:PORT); for workers on this machine "
            "leave the scheduler out and set processes (--engine dask --processes N)"
        )


#: dask settings of the ``LocalCluster`` that ``--engine dask`` starts without ``--scheduler``; each
#: default changed here cost this CPU-bound task time on a 2-core machine
#: (benchmarks/results/corpus.md). The same keys suit workers started on a cluster (docs/corpus_stats.md).
LOCAL_CLUSTER_CONFIG = {
    # the statistical profiler samples every task's stack every 10 ms
    "distributed.worker.profile.enabled": False,
    # MALLOC_TRIM_THRESHOLD_=65536 turns off glibc's dynamic mmap threshold: every large numpy
    # array of a chunk is mmap'ed and page-faulted anew (1.43x the workers' CPU seconds with it)
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    # event-loop health checks 50 times a second and /proc reads twice a second, in every worker
    # and in this process (the scheduler and the nannies live here): each wakes a thread that
    # takes the GIL from a task or the CPU from the other worker
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    # partitions are of equal size and queued on the scheduler; stealing only adds scheduler work
    "distributed.scheduler.work-stealing": False,
}


def _pin_this_process(core: int) -> int:
    """Bind every thread of the calling process to ``core`` (threads started later inherit it)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), {core})
        except OSError:  # a thread that has just ended
            pass
    return core


def pin_local_workers(client) -> bool:
    """Give each worker of a ``LocalCluster`` a core of its own when there are enough cores (Linux only).

    Returns whether the workers were pinned."""
    if not hasattr(os, "sched_setaffinity") or not os.path.isdir("/proc/self/task"):
        return False
    cores = sorted(os.sched_getaffinity(0))
    workers = sorted(client.scheduler_info()["workers"])
    if len(workers) > len(cores):
        return False
    for address, core in zip(workers, cores):
        client.run(_pin_this_process, core, workers=[address])
    return True


#: called after each partition with (partitions done, partitions in all)
Callback = Callable[[int, int], None]


def corpus_stats(
    corpus: str | os.PathLike,
    tokenizers: Sequence[str],
    settings: CorpusStatsSettings | None = None,
    *,
    engine: EngineSettings | None = None,
    data_dir: str | os.PathLike | None = None,
    languages: Sequence[str] | None = None,
    progress: bool = False,
    callback: Callback | None = None,
) -> CorpusStats:
    """Figures of ``corpus`` (file, folder or registry name) for each tokenizer (``[NAME=]PATH``).

    The tokenizers are loaded here first, so a bad path fails before any work is sent.
    """
    settings = settings or CorpusStatsSettings()
    engine = engine or EngineSettings()
    worker_segmenters(tuple(tokenizers), settings.count_lone_boundary, settings.tiktoken_pattern)
    parts = plan_partitions(
        corpus_files(corpus, data_dir=data_dir),
        n_partitions=engine.partitions,
        partition_bytes=engine.partition_bytes,
        languages=languages,
    )
    run = run_dask if engine.engine == "dask" else run_local
    total = run(parts, tuple(tokenizers), settings, engine, progress=progress, callback=callback)
    if not total.sums or all(s.buckets[:, 0].sum() == 0 for langs in total.sums.values() for s in langs.values()):
        raise DataFormatError(f"{corpus}: no text; the corpus has no non-blank line")
    return summarize(total, settings)


class _Progress:
    """Merges partial sums as they arrive; drives the progress bar and the callback."""

    def __init__(self, parts: Sequence[Partition], progress: bool, callback: Callback | None, label: str):
        self.total, self.done, self.callback = len(parts), 0, callback
        self.sizes = {i: p.size for i, p in enumerate(parts)}
        self.aggregate = CorpusAggregate.empty()
        self.bar = None
        if progress:
            from tqdm.auto import tqdm  # deferred: ~50 ms (asyncio), only when a bar is shown

            self.bar = tqdm(
                total=sum(self.sizes.values()),
                desc=f"corpus-stats ({label})",
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
            )

    def add(self, index: int, part: CorpusAggregate) -> None:
        self.aggregate.merge(part)
        self.done += 1
        if self.bar is not None:
            self.bar.update(self.sizes[index])
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_local(parts, tokenizers, settings, engine: EngineSettings, *, progress=False, callback=None) -> CorpusAggregate:
    """Run the partitions on a pool of ``engine.workers`` spawned processes (or in this one)."""
    state = _Progress(parts, progress, callback, f"local, {engine.workers} processes")
    try:
        if engine.workers == 1:
            for i, p in enumerate(parts):
                state.add(i, partition_aggregate(p, tokenizers, settings))
            return state.aggregate
        # spawn: no fork of a process that may hold tokenizer threads
        with ProcessPoolExecutor(engine.workers, mp_context=mp.get_context("spawn")) as pool:
            futures = {pool.submit(partition_aggregate, p, tokenizers, settings): i for i, p in enumerate(parts)}
            try:
                for fut in as_completed(futures):
                    state.add(futures.pop(fut), fut.result())
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise
        return state.aggregate
    finally:
        state.close()


def run_dask(parts, tokenizers, settings, engine: EngineSettings, *, progress=False, callback=None) -> CorpusAggregate:
    """Run the partitions on a dask cluster (``engine.scheduler``) or on a new ``LocalCluster``."""
    try:  # deferred: dask is optional (pip install 'tokstudy[dask]') and heavy, only for this engine
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("engine 'dask' needs dask.distributed: pip install 'tokstudy[dask]'") from exc

    cluster = None
    if engine.scheduler:
        client = connect(engine.scheduler, engine.connect_timeout, "--scheduler")
        label = f"dask {engine.scheduler}"
    else:
        import dask  # deferred: optional and heavy, only for this engine

        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            cluster = LocalCluster(
                n_workers=engine.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                memory_limit=0,  # no memory monitor in each worker and nanny; a task's memory is bounded
            )
        client = Client(cluster)
        label = f"dask LocalCluster, {engine.workers} workers"
        if engine.pin_workers:
            pin_local_workers(client)
    state = _Progress(parts, progress, callback, label)
    try:
        futures = [client.submit(partition_aggregate, p, tokenizers, settings, pure=False) for p in parts]
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            # as_completed would otherwise follow default_client(): inside another client's `with`
            # (as in the killed-worker test) that is another event loop, and a future re-gathered after
            # its worker died then waits on the wrong loop ("bound to a different event loop")
            for fut in as_completed(futures, loop=client.loop):
                state.add(index[fut.key], fut.result())
                fut.release()
        except BaseException:
            client.cancel(futures)
            raise
        return state.aggregate
    finally:
        state.close()
        client.close()
        if cluster is not None:
            cluster.close()
