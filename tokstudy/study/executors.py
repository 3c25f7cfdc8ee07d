"""Where :meth:`~tokstudy.study.stages.StageRunner.run_many` runs the training stages: a local process pool, or Dask.

Three engines behind one small interface (:class:`Executor`): ``start`` before the first stage, ``submit`` one
stage's body and get a :class:`concurrent.futures.Future` of its outputs, ``stop`` at the end.

* :class:`InProcess` (``jobs: 1``, and every stage that is not a training run): this process, one stage at a time.
* :class:`ProcessPool` (``jobs: N``, ``--jobs N``): N spawned processes on this machine, each with cores / N
  compute threads.
* :class:`DaskCluster` (``cluster.address``, ``--cluster``): ``local:N`` starts N Dask worker processes on this
  machine (one per GPU on a GPU node, each with its own ``CUDA_VISIBLE_DEVICES``); ``tcp://HOST:PORT`` connects
  to a running scheduler (started by dask-jobqueue on SLURM, by ``dask scheduler``, ...). Every training run asks
  for the worker resource ``GPU=1``, so a worker runs one at a time and two runs never share a device. A worker
  that dies mid-run (killed, out of memory, end of its allocation) has its run started again on another worker,
  in the same stage folder, so that the run resumes from its last checkpoint. ``dask`` is imported only here,
  only by this engine (``pip install 'tokstudy[dask]'``).

The stage cache stays in the caller: the pipeline stamps a stage's folder before it is submitted and writes its
done-record when its outputs come back, whichever engine ran it.

>>> ProcessPool(2).slots, DaskCluster("local:2").slots is None
(2, True)
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import logging
import multiprocessing
import os
import socket
import traceback
from pathlib import Path
from typing import Callable, Protocol

from tokstudy.clusteraddress import ClusterAddress, ClusterError, connect, host_and_port
from tokstudy.errors import MissingDependencyError, UsageError
from tokstudy.study.attempts import recorded

#: the worker resource every training run asks one of: a worker started with ``--resources GPU=1`` runs one
#: training run at a time (on a CPU-only cluster it means one run per worker just the same)
GPU = "GPU"
#: lines of a failed stage's own traceback shown in the study's error
TRACEBACK_LINES = 12
#: where the study's cluster address is set, named when no scheduler answers there
SETTING = "cluster.address / --cluster"
#: the environment variables that set a process's compute threads (:func:`thread_env`)
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: the environment variable that names the GPUs a process may use, read by CUDA (and so by torch)
CUDA_DEVICES = "CUDA_VISIBLE_DEVICES"
#: where ``local:N``'s dashboard listens unless ``cluster.dashboard`` says otherwise: this machine only, as the
#: scheduler and its workers do (the dashboard shows task names and paths, and runs no authentication)
DASHBOARD = "127.0.0.1:8787"


class StageFailed(Exception):
    """A stage's body raised where it ran; the message says where and ends with the last lines of its traceback.

    Made of one string so that it crosses processes and Dask's pickling unchanged."""


def run_stage(fn: Callable, work: Path, inputs: dict, *, where: Callable[[], str]) -> dict:
    """Call ``fn(work, inputs)`` where the engine put it; an error becomes :class:`StageFailed` naming the place
    (``where()``) and the last :data:`TRACEBACK_LINES` lines of the stage's own traceback. The attempt is
    recorded in ``work`` as it runs (:mod:`tokstudy.study.attempts`)."""
    try:
        with recorded(work, where()):  # a retried run's cost counts this attempt even if its worker is killed
            return fn(work, inputs)
    except Exception as exc:
        lines = "".join(traceback.format_exception(exc)).rstrip().splitlines()[-TRACEBACK_LINES:]
        tail = "\n".join(f"    {line}" for line in lines)
        raise StageFailed(f"on {where()}: {type(exc).__name__}: {exc}\n  its traceback ends with:\n{tail}") from None


def this_process() -> str:
    """Where a stage runs in the process pool: the process and the machine."""
    return f"process {os.getpid()} on {socket.gethostname()}"


class Executor(Protocol):
    """An engine for :meth:`~tokstudy.study.stages.StageRunner.run_many`."""

    slots: int | None
    """The most stages the pipeline hands over at once (None: every stage that is ready; the engine queues)."""
    threads: int | None
    """Compute threads of each run where the engine sets them (the pool's cores / jobs), else None."""

    def start(self, root: Path, log: Callable[[str], None]) -> None:
        """Get ready to run stages whose folders lie under ``root``."""

    def submit(self, fn: Callable, work: Path, inputs: dict) -> concurrent.futures.Future:
        """Run ``fn(work, inputs)``; the future's result is its outputs, its exception :class:`StageFailed`."""

    def stop(self) -> None:
        """End, whether the stages succeeded or one failed: runs that have not started never do; what runs
        finishes (a pool's process) or is left to finish on its worker (a cluster's)."""


class InProcess:
    """Each stage in this process, one at a time, as it is handed over: a stage that raises raises here, as it
    raised (the study reports its own refusals, a missing dataset or a malformed file, in one line)."""

    slots = 1
    threads = None

    def start(self, root: Path, log: Callable[[str], None]) -> None:
        pass

    def submit(self, fn: Callable, work: Path, inputs: dict) -> concurrent.futures.Future:
        with recorded(work, this_process()):
            outputs = fn(work, inputs)
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_result(outputs)
        return future

    def stop(self) -> None:
        pass


class ProcessPool:
    """``jobs`` spawned processes on this machine, each with cores / jobs compute threads (``OMP_NUM_THREADS``,
    read by torch when it is imported): faster on a few cores than one process using them all for small models."""

    def __init__(self, jobs: int):
        self.slots = jobs
        self.threads = max(1, (os.cpu_count() or 1) // jobs)
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def start(self, root: Path, log: Callable[[str], None]) -> None:
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.slots,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=limit_threads,
            initargs=(self.threads,),
        )

    def submit(self, fn: Callable, work: Path, inputs: dict) -> concurrent.futures.Future:
        return self._pool.submit(run_stage, fn, work, inputs, where=this_process)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)  # what runs finishes; what waits never starts
            self._pool = None


def thread_env(threads: int) -> dict[str, str]:
    """The environment that gives a process ``threads`` compute threads (OpenMP, MKL and OpenBLAS read it when
    they are loaded).

    >>> thread_env(4)["OMP_NUM_THREADS"]
    '4'
    """
    return {var: str(threads) for var in THREAD_VARS}


def limit_threads(threads: int) -> None:
    """In a freshly spawned process, before torch or numpy is imported: ``threads`` compute threads
    (:func:`thread_env` set in this process's environment)."""
    os.environ.update(thread_env(threads))


def local_devices(environ: dict[str, str] | None = None) -> list[str]:
    """This machine's GPUs as ``CUDA_VISIBLE_DEVICES`` values: those it already names (a batch system's share),
    else one per NVIDIA GPU the driver lists (``/proc/driver/nvidia/gpus``), else none. Read without torch.

    >>> local_devices({"CUDA_VISIBLE_DEVICES": "2,3"})
    ['2', '3']
    """
    environ = os.environ if environ is None else environ
    visible = environ.get(CUDA_DEVICES)
    if visible is not None:
        return [d.strip() for d in visible.split(",") if d.strip() and not d.strip().startswith("-")]
    listed = Path("/proc/driver/nvidia/gpus")
    return [str(i) for i in range(len(list(listed.iterdir())))] if listed.is_dir() else []


def local_worker_envs(workers: int, devices: list[str], cores: int) -> list[dict[str, str]]:
    """Each local worker's own environment: its share of the cores and, on a GPU machine, its own device.

    >>> local_worker_envs(2, ["0", "1"], 16)[1]["CUDA_VISIBLE_DEVICES"]
    '1'
    """
    if devices and workers > len(devices):
        raise UsageError(
            f"local:{workers} asks for {workers} workers, but this machine has {len(devices)} GPUs "
            f"({','.join(devices)}): one training run per GPU, so at most local:{len(devices)}"
        )
    threads = thread_env(max(1, cores // workers))
    return [{**threads, CUDA_DEVICES: devices[i]} if devices else dict(threads) for i in range(workers)]


#: dask settings of the workers ``local:N`` starts (``allowed-failures`` is set from the configuration). A training
#: run is one task of minutes to days: dask's per-task bookkeeping only takes CPU from it.
LOCAL_CLUSTER_CONFIG = {
    # the statistical profiler samples every running task's stack every 10 ms
    "distributed.worker.profile.enabled": False,
    # MALLOC_TRIM_THRESHOLD_=65536 turns off glibc's dynamic mmap threshold: every large array (torch's tensors
    # too) is mmap'ed and page-faulted anew (1.43x the CPU seconds in the corpus engine, benchmarks/results/corpus.md)
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    # event-loop health checks 50 times a second and /proc reads twice a second, in every worker and nanny
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}


def worker_address() -> str:
    """Where a stage runs on Dask: the worker's address and its machine (called on the worker)."""
    from distributed import get_worker  # deferred: optional (tokstudy[dask]); a worker has imported it already

    return f"Dask worker {get_worker().address} ({socket.gethostname()})"


class DaskCluster:
    """The study's training runs as tasks of a Dask cluster: ``local:N`` or a running scheduler's address.

    Every run asks for one ``GPU`` resource (:data:`GPU`) and is submitted as soon as its model exists; the
    scheduler hands it to the next worker with a free one. A run whose worker died is started again by the
    scheduler, up to ``allowed_failures`` times; one that raised is started again ``retries`` times; either way
    it runs in the same stage folder and resumes from its checkpoint. ``local:N``'s dashboard listens on
    ``dashboard`` (``HOST:PORT``; ``:PORT`` for every interface).
    """

    def __init__(
        self,
        address: str,
        *,
        connect_timeout: float = 5.0,
        retries: int = 1,
        allowed_failures: int = 3,
        devices: list[str] | None = None,
        dashboard: str = DASHBOARD,
    ):
        try:
            self.address = ClusterAddress.parse(address)
        except ValueError as exc:
            raise UsageError(f"cluster address: {exc}") from None
        try:
            check_dashboard(dashboard)
        except ValueError as exc:
            raise UsageError(f"cluster.dashboard: {exc}") from None
        self.dashboard = dashboard
        self.connect_timeout = connect_timeout
        self.retries = retries
        self.allowed_failures = allowed_failures
        self.devices = devices
        self.slots = None
        self.threads = None
        self._cluster = None
        self._client = None
        self._executor = None

    def check(self) -> None:
        """Refuse now, in one line, what would fail when the first run is handed over: dask missing, ``local:N``
        with more workers than GPUs, a scheduler address with no usable scheduler behind it (the client connects
        once and leaves). The study calls it before its first stage, so that no tokenizer is trained for a
        cluster that cannot run the models."""
        require_dask()
        if self.address.workers:
            local_worker_envs(self.address.workers, self._devices(), os.cpu_count() or 1)
        else:
            connect(self.address.scheduler, self.connect_timeout, SETTING).close()

    def _devices(self) -> list[str]:
        return local_devices() if self.devices is None else list(self.devices)

    def start(self, root: Path, log: Callable[[str], None]) -> None:
        require_dask()
        if self.address.workers:
            self._client = self._start_local(self.address.workers)
        else:
            self._client = connect(self.address.scheduler, self.connect_timeout, SETTING)
            check_workers(self._client, root, log)
        log(dashboard_line(self._client))
        self._executor = self._client.get_executor(resources={GPU: 1}, retries=self.retries, pure=False)

    def _start_local(self, workers: int):
        import dask  # deferred: heavy and optional (tokstudy[dask]), only for a local Dask cluster
        from distributed import Client, Nanny, Scheduler, SpecCluster

        envs = local_worker_envs(workers, self._devices(), os.cpu_count() or 1)
        spec = {
            f"train-{i}": {
                "cls": Nanny,
                "options": {
                    "nthreads": 1,
                    "resources": {GPU: 1},
                    "env": env,
                    "memory_limit": 0,  # no memory monitor pausing or killing a training run
                    "host": "127.0.0.1",
                    "silence_logs": logging.ERROR,
                },
            }
            for i, env in enumerate(envs)
        }
        scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": self.dashboard}}
        settings = {**LOCAL_CLUSTER_CONFIG, "distributed.scheduler.allowed-failures": self.allowed_failures}
        with dask.config.set(settings):
            self._cluster = SpecCluster(workers=spec, scheduler=scheduler, silence_logs=logging.ERROR)
        return Client(self._cluster)

    def submit(self, fn: Callable, work: Path, inputs: dict) -> concurrent.futures.Future:
        return self._executor.submit(run_stage, fn, work, inputs, where=worker_address)

    def stop(self) -> None:
        # a run under way on a running scheduler's worker finishes there (a thread cannot be stopped); its folder
        # keeps its key, so the next study resumes it
        if self._executor is not None:
            self._executor.shutdown(wait=False)  # cancels what has not finished
        for closing in (self._client, self._cluster):
            if closing is not None:
                closing.close()
        self._executor = self._client = self._cluster = None


def require_dask() -> None:
    """One line naming the install when dask.distributed is missing."""
    if importlib.util.find_spec("distributed") is None:
        raise MissingDependencyError("--cluster runs the study on dask.distributed: pip install 'tokstudy[dask]'")


def check_dashboard(address: str) -> None:
    """``HOST:PORT``, or ``:PORT`` for every interface, for a dashboard; ``ValueError`` otherwise.

    >>> check_dashboard("127.0.0.1:8787"), check_dashboard(":8787")
    (None, None)
    """
    if not isinstance(address, str):
        raise ValueError(f"expected HOST:PORT (or :PORT for every interface), got {address!r}")
    # ":PORT" is Dask's spelling of every interface, 0.0.0.0
    host_and_port("0.0.0.0" + address if address.startswith(":") else address, where=address, scheme="http")


def check_workers(client, root: Path, log: Callable[[str], None]) -> None:
    """Refuse a cluster whose workers cannot take a run (no ``GPU`` resource, or the results folder out of
    sight); none yet is fine: the runs wait for workers (a batch system's queue)."""
    workers = _workers(client)
    if not workers:
        log(f"cluster: no worker yet; the runs wait for workers started with --resources {GPU}=1")
        return
    offers = {address: info.get("resources", {}).get(GPU, 0) for address, info in workers.items()}
    if not any(offers.values()):
        raise ClusterError(
            f"none of the {len(workers)} workers of the scheduler has the resource {GPU}, which every "
            f"training run asks for: start them with --resources {GPU}=1 (one worker per GPU)"
        )
    for address, count in offers.items():
        if count > 1:
            log(f"cluster: warning: worker {address} offers {GPU}={count:g}: its runs would share a device")
    blind = [a for a, sees in client.run(os.path.isdir, str(root)).items() if not sees]
    if blind:
        raise ClusterError(
            f"workers {blind} do not see the results folder {root}: it must be on a filesystem every worker shares "
            "(a relative path is read from each worker's working directory)"
        )
    log(f"cluster: {len(workers)} workers, {sum(offers.values()):g} {GPU} in all")


def dashboard_line(client) -> str:
    """Where the Dask dashboard is, said once."""
    if "dashboard" not in client.scheduler_info().get("services", {}):
        return "dask dashboard: off"
    missing = "" if importlib.util.find_spec("bokeh") else " (its pages need bokeh: pip install bokeh)"
    return f"dask dashboard: {client.dashboard_link}{missing}"


def _workers(client) -> dict:
    try:
        return client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:  # dask before 2025.4 has no n_workers and lists every worker
        return client.scheduler_info()["workers"]
