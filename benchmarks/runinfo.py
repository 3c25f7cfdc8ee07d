"""The date, machine and load of the run a benchmark measures, printed the same way by every benchmark.

A figure without the conditions it was taken under cannot be compared with the next one, and a fixed line
written into a script ("Date ...; shared with other jobs") is wrong on every later run. Each benchmark
prints ``describe()`` before it measures and ``load_line()`` after, so what it prints is read from the
machine it ran on.

    >>> import runinfo                       # benchmarks/ is on sys.path for its scripts
    >>> print(runinfo.describe())            # doctest: +SKIP
    Run 2026-11-26 14:03 UTC; machine: AMD EPYC, 2 cores, 23.5 GiB RAM, no GPU; Python 3.11.7; load average
    1.02 / 0.85 / 0.60 (1 / 5 / 15 min) at the start
    >>> print(runinfo.load_line())           # doctest: +SKIP
    load average 2.01 / 1.10 / 0.70 (1 / 5 / 15 min) at the end, 2026-11-26 14:05 UTC
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunInfo:
    """What a reader needs to compare one benchmark run with another."""

    date: str
    """When the run started, UTC, to the minute."""
    cpu: str
    """CPU model as the kernel names it (``/proc/cpuinfo``), else ``platform.processor()``."""
    cores: int
    """Logical CPUs this process may run on."""
    ram_gib: float
    """Physical memory of the machine."""
    gpu: str
    """GPU name(s) and memory, or ``"no GPU"``."""
    python: str
    """Python version."""
    torch: str | None
    """torch version (with its CUDA build), where the benchmark uses torch; else None."""
    load: tuple[float, float, float]
    """1-, 5- and 15-minute load averages when the run started: other work on the machine shows here."""

    def line(self) -> str:
        versions = f"Python {self.python}" + (f", torch {self.torch}" if self.torch else "")
        return (
            f"Run {self.date}; machine: {self.cpu}, {self.cores} cores, {self.ram_gib:.1f} GiB RAM, {self.gpu}; "
            f"{versions}; {_load_text(self.load)} at the start"
        )


def collect(*, torch: bool = False) -> RunInfo:
    """Read the run's conditions now; ``torch=True`` also reports torch's version and its GPU."""
    torch_version, torch_gpu = _torch_info() if torch else (None, None)
    return RunInfo(
        date=_utc_now(),
        cpu=_cpu_model(),
        cores=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0,
        ram_gib=_ram_gib(),
        gpu=torch_gpu or _nvidia_smi_gpus() or "no GPU",
        python=platform.python_version(),
        torch=torch_version,
        load=os.getloadavg(),
    )


def describe(*, torch: bool = False) -> str:
    """One line: date (UTC), machine (CPU, cores, RAM, GPU), versions and load average at the start."""
    return collect(torch=torch).line()


def load_line() -> str:
    """One line for the end of a run: the load average then, and the time (UTC)."""
    return f"{_load_text(os.getloadavg())} at the end, {_utc_now()}"


def _utc_now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def _load_text(load: tuple[float, float, float]) -> str:
    return "load average " + " / ".join(f"{x:.2f}" for x in load) + " (1 / 5 / 15 min)"


def _cpu_model() -> str:
    try:
        for row in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if row.startswith("model name"):
                return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return float("nan")


def _nvidia_smi_gpus() -> str | None:
    """GPU names and memory from ``nvidia-smi`` (no torch needed); None where there is none."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    rows = [r.strip() for r in out.stdout.splitlines() if r.strip()] if out.returncode == 0 else []
    return "; ".join(rows) or None


def _torch_info() -> tuple[str, str | None]:
    import torch

    version = torch.__version__ + (f" (CUDA {torch.version.cuda})" if torch.version.cuda else "")
    if not torch.cuda.is_available():
        return version, None
    names = []
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        names.append(f"{props.name} ({props.total_memory / 2**30:.0f} GiB)")
    return version, "; ".join(names)


if __name__ == "__main__":
    print(describe(torch="--torch" in sys.argv[1:]))
    print(load_line())
