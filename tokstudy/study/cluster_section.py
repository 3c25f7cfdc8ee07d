"""The study's ``cluster`` section: where its training runs run, this machine's process pool or a Dask cluster."""

from __future__ import annotations

from dataclasses import dataclass

from tokstudy.clusteraddress import ClusterAddress
from tokstudy.study.executors import DASHBOARD, DaskCluster, check_dashboard


@dataclass(frozen=True)
class ClusterSection:
    """Where the training runs (pre-training, control, fine-tuning) run: this machine's process pool (``jobs``), or
    a Dask cluster (:mod:`tokstudy.study.executors`; docs/study.md, "On a cluster"). Part of no stage's key: a
    study started on one engine is resumed on another.

    >>> ClusterSection(address="tcp://head:8786").address
    'tcp://head:8786'
    """

    address: str | None = None
    """``local:N``: start N Dask worker processes on this machine (on a GPU node one per GPU, each with its own
    ``CUDA_VISIBLE_DEVICES``); ``tcp://HOST:PORT`` (or ``tls://...``): a running scheduler's address (dask-jobqueue
    on SLURM, ``dask scheduler``), whose workers offer the resource ``GPU=1``; None: the process pool of ``jobs``.
    ``tokstudy study --cluster`` overrides it."""
    connect_timeout: float = 5.0
    """Seconds to wait for the scheduler at ``address`` before stopping with an error."""
    retries: int = 1
    """Times a training run that raised an error is started again (Dask's ``retries``), resuming from its
    checkpoint: for a fault of one node (a GPU error, a full local disk); an error of the run itself repeats."""
    allowed_failures: int = 3
    """Times a training run may lose its worker (killed, out of memory, the end of an allocation) before the
    study stops; each time it is started again on another worker and resumes. Sets the scheduler's
    ``distributed.scheduler.allowed-failures`` for ``local:N``; a running scheduler keeps its own."""
    devices: tuple[str, ...] | None = None
    """``local:N`` only: the ``CUDA_VISIBLE_DEVICES`` value of each worker, one each; None: this machine's GPUs
    (``CUDA_VISIBLE_DEVICES`` if set, else every NVIDIA GPU); ``[]``: none (CPU workers)."""
    dashboard: str = DASHBOARD
    """``local:N`` only: where the Dask dashboard listens, ``HOST:PORT``; this machine only by default, as the
    scheduler and workers; ``:8787`` for every interface (it has no login)."""

    def __post_init__(self) -> None:
        if self.address is not None:
            ClusterAddress.parse(self.address)
        try:
            check_dashboard(self.dashboard)
        except ValueError as exc:
            raise ValueError(f"cluster.dashboard: {exc}") from None
        if self.connect_timeout <= 0:
            raise ValueError(f"cluster.connect_timeout must be > 0 seconds, got {self.connect_timeout}")
        if self.retries < 0 or self.allowed_failures < 0:
            raise ValueError(
                f"cluster.retries and allowed_failures must be >= 0, got {self.retries}, {self.allowed_failures}"
            )
        if self.devices is not None:
            object.__setattr__(self, "devices", tuple(str(d) for d in self.devices))

    def executor(self) -> DaskCluster | None:
        """The Dask engine of ``address`` (not started), or None for the process pool."""
        if self.address is None:
            return None
        return DaskCluster(
            self.address,
            connect_timeout=self.connect_timeout,
            retries=self.retries,
            allowed_failures=self.allowed_failures,
            devices=None if self.devices is None else list(self.devices),
            dashboard=self.dashboard,
        )
