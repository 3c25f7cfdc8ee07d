"""A study's fine-tuning scores as typed values: ``scores.json`` (Tables 1-2) and ``control.json`` (pre-trained
against the no-pre-training control), each entry with its JSON codec.

``scores.json`` is ``{task: {model: Score}}``, ``control.json`` ``{task: {model: ControlComparison}}``;
:func:`scores_from_json` and :func:`control_from_json` read the whole files, ``to_json`` writes an entry back as
the study wrote it (``null`` for NaN, as every table's JSON).

>>> s = Score.from_json({"mean": 70.0, "std": 1.0, "n": 2, "metric": "F1", "values": [69.0, 71.0],
...                      "p_vs_a": 0.2})
>>> s.metric, s.p_vs, s.to_json()["p_vs_a"]
('F1', {'a': 0.2}, 0.2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tokstudy.analysis.stats.estimates import CONFIDENCE

#: the prefix of Welch's p against another model in a ``scores.json`` entry (``p_vs_<model>``)
P_VS = "p_vs_"
_NAN = float("nan")


def _float(v) -> float:
    """A JSON number as a float, ``null`` as NaN."""
    return _NAN if v is None else float(v)


def _json(v: float) -> float | None:
    return None if isinstance(v, float) and math.isnan(v) else v


@dataclass(frozen=True)
class Score:
    """One model's score on one task over its seeds.

    Attributes:
        mean: mean over seeds.
        std: sample standard deviation over seeds (0 for one seed; NaN where not recorded).
        n: seeds.
        values: each seed's score (empty where not recorded).
        metric: what is scored (``F1``, ``accuracy``); None in a comparison's sides, which name it once.
        p_vs: Welch's p against another model, by that model's name (``p_vs_<model>`` in the JSON).
    """

    mean: float
    std: float = _NAN
    n: int = 1
    values: tuple[float, ...] = ()
    metric: str | None = None
    p_vs: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict) -> Score:
        return cls(
            _float(data["mean"]),
            _float(data.get("std")),
            data.get("n", 1),
            tuple(_float(v) for v in data.get("values", ())),
            data.get("metric"),
            {k.removeprefix(P_VS): _float(v) for k, v in data.items() if k.startswith(P_VS)},
        )

    def to_json(self) -> dict:
        out = {"mean": _json(self.mean), "std": _json(self.std), "n": self.n}
        if self.metric is not None:
            out["metric"] = self.metric
        out["values"] = [_json(v) for v in self.values]
        return out | {P_VS + k: _json(p) for k, p in self.p_vs.items()}


@dataclass(frozen=True)
class ControlComparison:
    """A pre-trained model against the same architecture fine-tuned from random weights, on one task.

    Attributes:
        metric: what is scored.
        pretrained, control: the two sides over their seeds.
        diff: pre-trained mean - control mean (score points).
        low, high: Welch's interval of ``diff`` (NaN with fewer than 2 seeds or no spread).
        p: Welch's p of the difference.
        confidence: the interval's coverage.
    """

    metric: str
    pretrained: Score
    control: Score
    diff: float
    low: float = _NAN
    high: float = _NAN
    p: float = _NAN
    confidence: float = CONFIDENCE

    @classmethod
    def from_json(cls, data: dict) -> ControlComparison:
        return cls(
            data.get("metric", "score"),
            Score.from_json(data["pretrained"]),
            Score.from_json(data["control"]),
            _float(data["diff"]),
            *(_float(data.get(k)) for k in ("low", "high", "p")),
            data.get("confidence", CONFIDENCE),
        )

    def to_json(self) -> dict:
        return {
            "metric": self.metric,
            "pretrained": self.pretrained.to_json(),
            "control": self.control.to_json(),
            "diff": _json(self.diff),
            "low": _json(self.low),
            "high": _json(self.high),
            "p": _json(self.p),
            "confidence": self.confidence,
        }


def scores_from_json(data: dict | None) -> dict[str, dict[str, Score]]:
    """``scores.json`` as ``{task: {model: Score}}`` (empty for None)."""
    return {task: {m: Score.from_json(s) for m, s in by.items()} for task, by in (data or {}).items()}


def control_from_json(data: dict | None) -> dict[str, dict[str, ControlComparison]]:
    """``control.json`` as ``{task: {model: ControlComparison}}`` (empty for None)."""
    return {task: {m: ControlComparison.from_json(c) for m, c in by.items()} for task, by in (data or {}).items()}


def scores_to_json(scores: dict[str, dict[str, Score]]) -> dict:
    """``scores.json`` from ``{task: {model: Score}}``."""
    return {task: {m: s.to_json() for m, s in by.items()} for task, by in scores.items()}


def control_to_json(control: dict[str, dict[str, ControlComparison]]) -> dict:
    """``control.json`` from ``{task: {model: ControlComparison}}``."""
    return {task: {m: c.to_json() for m, c in by.items()} for task, by in control.items()}
