"""Tables 1-2's companions: each pre-trained model against its no-pre-training control, and what each cost.

Pure functions over the fine-tuning runs (:class:`~tokstudy.study.scored_runs.ScoredRun`) and the pre-training
stages' costs (:class:`~tokstudy.study.run_cost.RunCost`); the analysis stage writes what they return to
``tables/control.json`` and ``tables/cost.json``. A run attempted more than once (its worker killed, then resumed
elsewhere) costs what all its attempts cost (:func:`with_attempts`, where a stage's cost record is decoded).

Mean ± sd and Welch's test come from :mod:`tokstudy.analysis.stats.welch` (torch-free; the one place
the study's protocol statistics live).

>>> runs = [ScoredRun("a", "t", i % 3, i < 3, s, "F1") for i, s in enumerate((80.0, 82.0, 81.0, 60.0, 62.0, 61.0))]
>>> c = control_comparison(runs)["t"]["a"]
>>> round(c.diff, 1), c.low > 0, c.pretrained.mean
(20.0, True, 81.0)
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from tokstudy.analysis.stats.estimates import CONFIDENCE
from tokstudy.analysis.stats.welch import Summary, significance_mark, summarize, welch_difference
from tokstudy.report.scores import ControlComparison, Score, control_from_json, scores_from_json
from tokstudy.study.attempts import Attempt, AttemptEnd
from tokstudy.study.control import CONTROL_SUFFIX
from tokstudy.study.run_cost import CostTable, RunCost, SummedCost
from tokstudy.study.scored_runs import ScoredRun, by_task_and_tokenizer


def control_comparison(
    runs: Sequence[ScoredRun], confidence: float = CONFIDENCE
) -> dict[str, dict[str, ControlComparison]]:
    """``{task: {tokenizer: ControlComparison}}`` for every tokenizer with both pre-trained and control runs.

    ``diff`` = pre-trained mean - control mean (score points) with its Welch ``confidence`` interval;
    :func:`~tokstudy.report.scores.control_to_json` writes it as ``control.json``.
    """
    pre = by_task_and_tokenizer(r for r in runs if r.pretrained)
    ctl = by_task_and_tokenizer(r for r in runs if not r.pretrained)
    out: dict[str, dict[str, ControlComparison]] = {}
    for task, by_tok in ctl.items():
        for tok, controls in by_tok.items():
            if tok not in pre.get(task, {}):
                continue
            a = [r.score for r in sorted(pre[task][tok], key=lambda r: r.seed)]
            b = [r.score for r in sorted(controls, key=lambda r: r.seed)]
            d = welch_difference(a, b, confidence)
            sides = _score(summarize(a)), _score(summarize(b))
            out.setdefault(task, {})[tok] = ControlComparison(
                controls[0].metric, *sides, d.diff, d.low, d.high, d.p, d.confidence
            )
    return out


def _score(s: Summary) -> Score:
    """One side of a comparison: its seeds' summary (the metric is named once, by the comparison)."""
    return Score(s.mean, s.std, s.n, s.values)


def sum_costs(costs: Sequence[RunCost | None]) -> SummedCost | None:
    """The runs' costs added up (wall time, device-hours, energy and CO2e each ``None`` as soon as one run's is);
    ``None`` if none was recorded.

    >>> a = RunCost(60.0, energy_kwh=0.5, co2e_kg=0.1, method="m", device_hours=1 / 60)
    >>> sum_costs([a, a]).energy_kwh, sum_costs([a, dataclasses.replace(a, energy_kwh=None)]).energy_kwh
    (1.0, None)
    """
    known = [c for c in costs if c is not None]
    if not known:
        return None
    return SummedCost(
        wall_seconds=_sum(c.wall_seconds for c in known),
        device_hours=_sum(c.device_hours for c in known),
        energy_kwh=_sum(c.energy_kwh for c in known),
        co2e_kg=_sum(c.co2e_kg for c in known),
        runs=len(known),
        method="; ".join(dict.fromkeys(c.method for c in known)),
        attempts=sum(c.attempts for c in known),
        lost_seconds=math.fsum(c.lost_seconds for c in known),
    )


def _sum(values) -> float | None:
    """The exact sum of ``values``; ``None`` as soon as one is."""
    values = list(values)
    return None if any(v is None for v in values) else math.fsum(values)


def with_attempts(record: Mapping | None, attempts: Sequence[Attempt]) -> RunCost | None:
    """A run's cost, decoded from its stage's ``record`` (as its trainer measured the attempt that returned:
    :meth:`~tokstudy.study.run_cost.RunCost.from_json`), with every attempt of the run.

    ``attempts`` counts them all. The time of each attempt lost with its worker (killed, out of memory, the end
    of an allocation: :class:`~tokstudy.study.attempts.AttemptEnd`), which no trainer could record, is added to
    the wall time, the device-hours and the stage's time (``lost_seconds``: its whole time, up to the last
    rewrite of its record); the run's energy and CO2e are then unknown (None), a lost attempt's never having
    been measured. An attempt that raised ended in its trainer's hands: its time is in ``record`` where the
    trainer measured it (the pre-trainer records the training of every call, the fine-tuner that of the call that
    returned).

    >>> lost, done = Attempt("w1", 0.0, 30.0, AttemptEnd.LOST), Attempt("w2", 40.0, 61.0, AttemptEnd.RETURNED)
    >>> record = {"wall_seconds": 60.0, "device_count": 1, "device_hours": 60 / 3600, "energy_kwh": 0.1, "method": "m"}
    >>> c = with_attempts(record, [lost, done])
    >>> c.wall_seconds, c.attempts, c.lost_seconds, c.device_hours * 3600, c.energy_kwh
    (90.0, 2, 30.0, 90.0, None)
    """
    cost = RunCost.from_json(record)
    if cost is None or len(attempts) < 2:
        return cost
    lost = math.fsum(a.seconds for a in attempts if a.end is AttemptEnd.LOST)
    out = dataclasses.replace(
        cost,
        attempts=len(attempts),
        lost_seconds=lost,
        wall_seconds=cost.wall_seconds + lost,
        stage_seconds=None if cost.stage_seconds is None else cost.stage_seconds + lost,
        device_hours=None if cost.device_hours is None else cost.device_hours + lost / 3600 * (cost.device_count or 1),
    )
    if lost and cost.energy_kwh is not None:
        method = f"not measured: an attempt was lost with its worker (the finished one: {cost.method})"
        out = dataclasses.replace(out, energy_kwh=None, co2e_kg=None, method=method)
    return out


def cost_table(runs: Sequence[ScoredRun], pretrain_cost: Mapping[str, RunCost | None]) -> CostTable:
    """Each tokenizer's pre-training cost, and each task's fine-tuning per model summed over seeds.

    Fine-tuning models are named as in Tables 1-2: the tokenizer, with the control's suffix for controls.
    """
    finetune: dict = defaultdict(lambda: defaultdict(list))
    for r in runs:
        model = r.tokenizer + ("" if r.pretrained else CONTROL_SUFFIX)
        finetune[r.task][model].append(r.cost)
    return CostTable(
        dict(pretrain_cost), {task: {m: sum_costs(cs) for m, cs in by.items()} for task, by in finetune.items()}
    )


def energy_points(scores: dict, control: dict, costs: CostTable) -> list[dict]:
    """One point per (task, model): mean score ± sd against the model's total energy for that task.

    ``scores`` and ``control`` are ``scores.json`` and ``control.json`` as written (read here through
    :mod:`tokstudy.report.scores`). Total energy = pre-training (none for a control) + all fine-tuning seeds of
    that task; points whose energy was not measured are left out.
    """
    control_of = control_from_json(control)
    points = []
    for task, by_tok in scores_from_json(scores).items():
        rows = [(tok, s, True) for tok, s in by_tok.items()]
        rows += [(tok, c.control, False) for tok, c in control_of.get(task, {}).items()]
        metric = next(iter(by_tok.values())).metric or "score"
        for tok, score, pretrained in rows:
            model = tok if pretrained else tok + CONTROL_SUFFIX
            ft = costs.finetune.get(task, {}).get(model)
            pre = _pretraining_energy(costs, tok) if pretrained else 0.0  # a control was not pre-trained
            if ft is None or ft.energy_kwh is None or pre is None:
                continue
            points.append(
                {
                    "task": task,
                    "model": model,
                    "tokenizer": tok,
                    "pretrained": pretrained,
                    "mean": score.mean,
                    "std": score.std,
                    "energy_kwh": pre + ft.energy_kwh,
                    "metric": metric,
                }
            )
    return points


def _pretraining_energy(costs: CostTable, tokenizer: str) -> float | None:
    """The energy of ``tokenizer``'s pre-training; ``None`` when not known or not measured."""
    cost = costs.pretrain.get(tokenizer)
    return None if cost is None else cost.energy_kwh


def format_cost(cost: RunCost | SummedCost | None) -> str:
    """``"12.3 min, 0.0042 kWh, 1.2 g CO2e"``; energy "not measured" when it was not.

    >>> format_cost(RunCost(90.0))
    '1.5 min, energy not measured'
    """
    if cost is None:
        return "not measured"
    wall = f"{cost.wall_seconds / 60:.1f} min{_attempts(cost)}"
    if cost.energy_kwh is None:
        return f"{wall}, energy not measured"
    return f"{wall}, {cost.energy_kwh:.4f} kWh, {1000 * cost.co2e_kg:.2f} g CO2e"


def _attempts(cost: RunCost | SummedCost) -> str:
    """``" (2 attempts)"`` for a run attempted more than once, ``" (4 attempts for 3 runs)"`` for a sum of runs.

    >>> _attempts(SummedCost(1.0, None, None, None, runs=3, method="m", attempts=4)), _attempts(RunCost(1.0))
    (' (4 attempts for 3 runs)', '')
    """
    if cost.attempts <= cost.runs:
        return ""
    return f" ({cost.attempts} attempts)" if cost.runs == 1 else f" ({cost.attempts} attempts for {cost.runs} runs)"


def tables_1_2_markdown(
    scores: dict, control: dict, costs: dict | None, order: list[str], seeds: int, *, figure: str | None = None
) -> str:
    """Scores (pre-trained, then no-pre-training controls) and, below, what each model cost.

    ``scores``, ``control`` and ``costs`` are ``scores.json``, ``control.json`` and ``cost.json`` as written (read
    here through :mod:`tokstudy.report.scores` and :meth:`~tokstudy.study.run_cost.CostTable.from_json`)."""
    control_of = control_from_json(control)
    ctl_order = [m for m in order if any(m in by for by in control_of.values())]
    cols = order + [m + CONTROL_SUFFIX for m in ctl_order]
    lines = []
    for task, by in scores_from_json(scores).items():
        metric = next(iter(by.values())).metric
        cells = []
        for m in order:
            if m in by:
                # Welch's p against the smallest vocabulary; NaN (no mark) where not tested
                star = significance_mark(by[m].p_vs.get(order[0], math.nan))
                cells.append(f"{by[m].mean:.2f} ± {by[m].std:.2f}{star}")
            else:
                cells.append("")
        for m in ctl_order:
            c = control_of.get(task, {}).get(m)
            cells.append(f"{c.control.mean:.2f} ± {c.control.std:.2f}" if c else "")
        lines.append(f"| {task} ({metric}) | " + " | ".join(cells) + " |")
    text = (
        f"Mean ± standard deviation over {seeds} seeds; `*` marks p < 0.05 (Welch's t-test) "
        "against the smallest vocabulary."
        + (
            f" Columns marked{CONTROL_SUFFIX} are the no-pre-training control: the same architecture and "
            "vocabulary fine-tuned from random weights with the same settings and seeds."
            if ctl_order
            else ""
        )
        + "\n\n| task | "
        + " | ".join(cols)
        + " |\n|---|"
        + "---|" * len(cols)
        + "\n"
        + "\n".join(lines)
    )
    if costs:
        text += _cost_markdown(CostTable.from_json(costs), order, ctl_order, seeds)
    if figure:
        text += f"\n\n![score against energy]({figure})"
    return text


#: said below the cost table when a run was attempted more than once
RETRIED_NOTE = (
    "A run shown with its attempts was started again after an attempt that did not finish (its worker or the "
    "study killed, or an error retried): its time includes each attempt lost with its worker, up to that "
    "attempt's last progress record, and its energy is not given when an attempt was lost (that attempt's was "
    "never measured)."
)


def _cost_markdown(costs: CostTable, order: list[str], ctl_order: list[str], seeds: int) -> str:
    """The cost table below the scores: pre-training and each task's fine-tuning per model, and how energy was
    measured; a note when a run took more than one attempt."""
    cols = order + [m + CONTROL_SUFFIX for m in ctl_order]
    rows = [
        "| pre-training | "
        + " | ".join(format_cost(costs.pretrain.get(m)) for m in order)
        + " |"
        + " — |" * len(ctl_order)
    ]
    for task, by in costs.finetune.items():
        rows.append(f"| fine-tuning {task} | " + " | ".join(format_cost(by.get(m)) for m in cols) + " |")
    every = costs.every()
    methods = sorted({c.method for c in every})
    retried = any(_attempts(c) for c in every)
    return (
        "\n\nWhat each model cost: wall time, energy and CO2e of its pre-training and of each task's "
        f"fine-tuning (all {seeds} seeds together). Energy: "
        + "; ".join(f"`{m}`" for m in methods)
        + ". On a CPU codecarbon estimates the power from the "
        "processor's TDP and load: the kWh are an estimate, not a measurement. Device-hours and more "
        "in `tables/cost.csv`.\n\n| run | "
        + " | ".join(cols)
        + " |\n|---|"
        + "---|" * len(cols)
        + "\n"
        + "\n".join(rows)
        + (f"\n\n{RETRIED_NOTE}" if retried else "")
    )
