"""What a run cost: wall time, device-hours, energy (kWh) and CO2e, measured with codecarbon when it is there.

The mALBERT paper weighs its scores against compute (about 9,000 GPU hours); every pre-training and
fine-tuning run here records the same figures. Energy comes from codecarbon's *offline* tracker (no
network): on a GPU it reads NVML, on a CPU without RAPL it estimates from the processor's TDP and load,
so on CPU the kWh are **codecarbon's estimate**, and ``method`` says so. CO2e is the energy times the
carbon intensity codecarbon holds for ``country`` (ISO 3166 alpha-3, default France, where the paper's
models were trained).

codecarbon is optional: when it is missing or fails, the wall time is still recorded and energy and
CO2e are ``None``, written "not measured" (never a guessed number).

A device-hour is an hour of wall time on one device: each GPU counts as one device, and so does the
CPU of a machine without one.

>>> meter = CostMeter(track_energy=False)
>>> cost = meter.stop()
>>> cost.energy_kwh is None, cost.method
(True, 'not measured: energy tracking switched off')
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tokstudy.fileio import atomic_write_text

#: File the pre-trainer writes beside its metrics log (one segment per call of ``train``).
COST_FILE = "cost.json"
DEFAULT_COUNTRY = os.environ.get("TOKSTUDY_CO2_COUNTRY", "FRA")


@dataclass(frozen=True)
class Cost:
    """One run's cost."""

    wall_seconds: float
    """Wall-clock seconds of the measured work."""
    device: str
    """``cpu`` or the GPU's name (``cuda:NVIDIA H100 80GB HBM3``)."""
    device_count: int
    """GPUs used, or 1 for the CPU."""
    energy_kwh: float | None
    """Energy (CPU + GPU + RAM) in kWh; ``None``: not measured."""
    co2e_kg: float | None
    """Emissions in kg CO2-equivalent; ``None``: not measured."""
    method: str
    """How energy was obtained (codecarbon version, estimate or measurement, grid), or why it was not."""

    @property
    def device_hours(self) -> float:
        return self.wall_seconds / 3600.0 * self.device_count

    def to_dict(self) -> dict:
        return {**asdict(self), "device_hours": self.device_hours}

    @classmethod
    def from_dict(cls, data: dict) -> "Cost":
        return cls(
            **{k: data.get(k) for k in ("wall_seconds", "device", "device_count", "energy_kwh", "co2e_kg", "method")}
        )


def add_costs(costs: list[Cost]) -> Cost | None:
    """The sum of several runs' costs (energy ``None`` as soon as one run's is); ``None`` for no runs.

    >>> a = Cost(60.0, "cpu", 1, 0.001, 0.0001, "m")
    >>> add_costs([a, a]).energy_kwh, add_costs([a, Cost(1.0, "cpu", 1, None, None, "x")]).energy_kwh
    (0.002, None)
    """
    if not costs:
        return None
    measured = all(c.energy_kwh is not None for c in costs)
    methods = list(dict.fromkeys(c.method for c in costs))
    return Cost(
        wall_seconds=sum(c.wall_seconds for c in costs),
        device=costs[0].device if len({c.device for c in costs}) == 1 else "mixed",
        device_count=max(c.device_count for c in costs),
        energy_kwh=sum(c.energy_kwh for c in costs) if measured else None,
        co2e_kg=sum(c.co2e_kg or 0.0 for c in costs) if measured else None,
        method="; ".join(methods),
    )


def _device() -> tuple[str, int]:
    torch = sys.modules.get("torch")  # never import torch just to name the device
    if torch is not None and torch.cuda.is_available():
        return f"cuda:{torch.cuda.get_device_name(0)}", torch.cuda.device_count()
    return "cpu", 1


class CostMeter:
    """Starts measuring when built; :meth:`stop` returns the :class:`Cost` (idempotent)."""

    def __init__(self, *, track_energy: bool = True, country: str = DEFAULT_COUNTRY):
        self.country = country
        self._tracker = None
        self._why_not = "energy tracking switched off"
        self._cost: Cost | None = None
        if track_energy:
            self._start_tracker()
        self._t0 = time.perf_counter()

    def _start_tracker(self) -> None:
        try:
            # deferred: codecarbon is optional and slow to import, only when energy is metered
            import codecarbon
            from codecarbon import OfflineEmissionsTracker
        except ImportError:
            self._why_not = "codecarbon is not installed"
            return
        logging.getLogger("codecarbon").setLevel(logging.ERROR)
        try:
            self._tracker = OfflineEmissionsTracker(
                country_iso_code=self.country, save_to_file=False, log_level="error", allow_multiple_runs=True
            )
            self._tracker.start()
            self._version = codecarbon.__version__
        except Exception as exc:  # codecarbon raises many kinds; a failed meter must not fail the run
            self._tracker, self._why_not = None, f"codecarbon failed to start ({type(exc).__name__}: {exc})"

    def stop(self) -> Cost:
        if self._cost is not None:
            return self._cost
        wall = time.perf_counter() - self._t0
        device, count = _device()
        energy = co2 = None
        method = f"not measured: {self._why_not}"
        if self._tracker is not None:
            try:
                emissions = self._tracker.stop()
                data = self._tracker.final_emissions_data
                energy, co2 = float(data.energy_consumed), float(emissions)
                gpu = float(data.gpu_energy or 0) > 0
                kind = "NVML measurement (GPU) + CPU/RAM" if gpu else "estimate (CPU, TDP x load)"
                method = f"codecarbon {self._version} offline, {kind}, grid {self.country}"
            except Exception as exc:
                method = f"not measured: codecarbon failed to stop ({type(exc).__name__}: {exc})"
        self._cost = Cost(wall, device, count, energy, co2, method)
        return self._cost


def record_segment(path: str | os.PathLike, cost: Cost, *, resumed: bool) -> dict:
    """Write ``cost`` to ``path`` as a new file, or as one more segment of a resumed run; returns the file's data.

    The file holds ``segments`` (one per call) and their ``total``.
    """
    path = Path(path)
    segments = []
    if resumed and path.is_file():
        try:
            segments = json.loads(path.read_text(encoding="utf-8")).get("segments", [])
        except (OSError, json.JSONDecodeError):
            segments = []
    segments.append(cost.to_dict())
    total = add_costs([Cost.from_dict(s) for s in segments])
    data = {"segments": segments, "total": total.to_dict()}
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    return data


def read_total(path: str | os.PathLike) -> dict | None:
    """The ``total`` of a cost file, or ``None`` when there is none."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("total")
    except (OSError, json.JSONDecodeError):
        return None
