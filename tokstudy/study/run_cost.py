"""What the study's runs cost, typed: one run (:class:`RunCost`), a sum over runs (:class:`SummedCost`) and the
study's cost table (:class:`CostTable`), each with its one JSON codec.

A stage records its run's cost as the trainer measured it, a plain dict (:meth:`pretrain.cost.Cost.to_dict`'s
fields, plus ``stage_seconds`` for a model's stage); the analysis decodes it once, with :meth:`RunCost.from_json`,
and ``tables/cost.json`` and ``tables/cost.csv`` are written from :meth:`CostTable.to_json` and
:meth:`CostTable.rows`. Keys come out in the trainer's order (``wall_seconds``, ``device``, ``device_count``,
``energy_kwh``, ``co2e_kg``, ``method``, ``device_hours``), then any further keys the trainer wrote, then what the
study adds (``stage_seconds``, and ``attempts`` and ``lost_seconds`` for a run attempted more than once).

>>> record = {"wall_seconds": 60.0, "device": "cpu", "device_count": 1, "energy_kwh": None, "co2e_kg": None,
...           "method": "not measured", "device_hours": 60 / 3600, "stage_seconds": 61.5}
>>> cost = RunCost.from_json(record)
>>> cost.wall_seconds, cost.energy_kwh, cost.runs, cost.to_json() == record
(60.0, None, 1, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the fields of a trainer's record, in the order it writes them (:meth:`pretrain.cost.Cost.to_dict`)
_TRAINER_FIELDS = ("wall_seconds", "device", "device_count", "energy_kwh", "co2e_kg", "method", "device_hours")
#: the fields the study adds to a run's record
_STUDY_FIELDS = ("stage_seconds", "attempts", "lost_seconds")
#: written even when None: a trainer always says whether energy was measured, and how
_ALWAYS = ("wall_seconds", "energy_kwh", "co2e_kg", "method")


@dataclass(frozen=True)
class RunCost:
    """What one run cost: the trainer's measure of its work, the whole stage's time, and every attempt."""

    wall_seconds: float
    """Wall-clock seconds of the measured work (with each attempt lost with its worker added)."""
    energy_kwh: float | None = None
    """Energy in kWh; ``None``: not measured (nor when an attempt was lost, its energy never having been)."""
    co2e_kg: float | None = None
    """Emissions in kg CO2-equivalent; ``None``: not measured."""
    method: str = ""
    """How energy was obtained, or why it was not."""
    device: str | None = None
    """``cpu`` or the GPU's name; ``None``: not recorded."""
    device_count: int | None = None
    """GPUs used, or 1 for the CPU; ``None``: not recorded."""
    device_hours: float | None = None
    """Wall time times devices, in hours; ``None``: not recorded."""
    stage_seconds: float | None = None
    """The whole stage's time (data preparation included) for a model's stage; ``None`` for a fine-tuning run."""
    attempts: int = 1
    """How many times the run was started (:func:`~tokstudy.study.control_and_cost.with_attempts`)."""
    lost_seconds: float = 0.0
    """The time of the attempts lost with their worker, already in ``wall_seconds`` and ``stage_seconds``."""
    extra: tuple[tuple[str, Any], ...] = ()
    """Further keys of the trainer's record, as ``(key, value)`` pairs, passed through to ``cost.json``."""

    @property
    def runs(self) -> int:
        """One run (a :class:`SummedCost` says how many it sums)."""
        return 1

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> RunCost | None:
        """A run's cost from its record (a stage's, or an entry of ``cost.json``). ``None`` for no record, and for
        one without the trainer's ``wall_seconds`` (a backend that returned no cost: only the stage's own time is
        known, and the run counts as not measured)."""
        if not data or data.get("wall_seconds") is None:
            return None
        known = {k: data[k] for k in (*_TRAINER_FIELDS, *_STUDY_FIELDS) if k in data}
        extra = tuple((k, v) for k, v in data.items() if k not in known)
        return cls(**known, extra=extra)

    def to_json(self) -> dict[str, Any]:
        """The record as :meth:`from_json` reads it, keys in the trainer's order, then the study's; a field that
        was not recorded (``None``) is left out, except wall time, energy, CO2e and method."""
        out = {k: getattr(self, k) for k in _TRAINER_FIELDS if k in _ALWAYS or getattr(self, k) is not None}
        out.update(self.extra)
        if self.stage_seconds is not None:
            out.update(stage_seconds=self.stage_seconds)
        if self.attempts > 1:
            out.update(attempts=self.attempts, lost_seconds=self.lost_seconds)
        return out


@dataclass(frozen=True)
class SummedCost:
    """What several runs cost together (a model's fine-tuning on one task, all seeds)."""

    wall_seconds: float | None
    """Summed wall time; ``None`` as soon as one run's is unknown."""
    device_hours: float | None
    """Summed device-hours; ``None`` as soon as one run's is unknown."""
    energy_kwh: float | None
    """Summed energy; ``None`` as soon as one run's was not measured."""
    co2e_kg: float | None
    """Summed CO2e; ``None`` as soon as one run's was not measured."""
    runs: int
    """How many runs are summed."""
    method: str
    """The runs' distinct methods, in the order first met, joined by ``"; "``."""
    attempts: int
    """Attempts of all the runs (equal to ``runs`` when none was retried)."""
    lost_seconds: float = 0.0
    """The time of the attempts lost with their worker, already in ``wall_seconds``."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> SummedCost | None:
        """A sum from its entry in ``cost.json``; ``None`` for none."""
        if not data:
            return None
        return cls(**{"attempts": data["runs"], **data})  # no attempts written: none retried

    def to_json(self) -> dict[str, Any]:
        """The entry as :meth:`from_json` reads it; ``attempts`` and ``lost_seconds`` only when a run was retried."""
        out = {
            "wall_seconds": self.wall_seconds,
            "device_hours": self.device_hours,
            "energy_kwh": self.energy_kwh,
            "co2e_kg": self.co2e_kg,
            "runs": self.runs,
            "method": self.method,
        }
        if self.attempts > self.runs:
            out.update(attempts=self.attempts, lost_seconds=self.lost_seconds)
        return out


@dataclass(frozen=True)
class CostTable:
    """What every model cost: its pre-training, and each task's fine-tuning summed over seeds (``cost.json``).

    Fine-tuned models are named as in Tables 1-2 (the tokenizer, with the control's suffix for a control).
    """

    pretrain: dict[str, RunCost | None]
    """Pre-training cost by tokenizer (``None``: not known, as for a checkpoint pre-trained elsewhere)."""
    finetune: dict[str, dict[str, SummedCost | None]]
    """``{task: {model: cost of all its seeds}}``."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CostTable:
        """The table from ``cost.json`` as written."""
        return cls(
            {tok: RunCost.from_json(c) for tok, c in data["pretrain"].items()},
            {task: {m: SummedCost.from_json(c) for m, c in by.items()} for task, by in data["finetune"].items()},
        )

    def to_json(self) -> dict[str, Any]:
        """``{"pretrain": {tok: cost}, "finetune": {task: {model: cost}}}``, a cost not known as ``null``."""
        return {
            "pretrain": {tok: _json(c) for tok, c in self.pretrain.items()},
            "finetune": {task: {m: _json(c) for m, c in by.items()} for task, by in self.finetune.items()},
        }

    def rows(self) -> list[dict[str, Any]]:
        """``cost.csv``: one row per pre-training and per (task, model) fine-tuning, after ``stage``, ``task`` and
        ``model`` the fields of its JSON entry."""
        out = [{"stage": "pretrain", "task": "", "model": t, **_json(c, {})} for t, c in self.pretrain.items()]
        out += [
            {"stage": "finetune", "task": task, "model": m, **_json(c, {})}
            for task, by in self.finetune.items()
            for m, c in by.items()
        ]
        return out

    def every(self) -> list[RunCost | SummedCost]:
        """Every cost known, pre-training first."""
        costs = [*self.pretrain.values(), *(c for by in self.finetune.values() for c in by.values())]
        return [c for c in costs if c is not None]


def _json(cost: RunCost | SummedCost | None, missing: Any = None) -> Any:
    """``cost``'s JSON, ``missing`` for no cost."""
    return missing if cost is None else cost.to_json()
