"""The fine-tuning runs as the analysis reads them: each run of the plan with its score, predictions and cost.

Built once, after the training stages, from the plan's runs and their stages' outcomes
(:class:`~tokstudy.study.outcomes.FinetuneOutcome`); Tables 1-2, the control comparison and the cost table read
them grouped by task, then tokenizer (:func:`by_task_and_tokenizer`).

>>> runs = [ScoredRun("a", "t", 1, True, 81.0, "F1"), ScoredRun("b", "t", 0, True, 70.0, "F1"),
...         ScoredRun("a", "t", 0, True, 80.0, "F1")]
>>> {task: {tok: [r.seed for r in rs] for tok, rs in by.items()} for task, by in by_task_and_tokenizer(runs).items()}
{'t': {'a': [1, 0], 'b': [0]}}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable

from tokstudy.study.run_cost import RunCost


@dataclass(frozen=True)
class ScoredRun:
    """One (model, task, seed) fine-tuning run and what it gave."""

    tokenizer: str
    task: str
    """The task's label (:attr:`~tokstudy.study.config.TaskSpec.label`)."""
    seed: int
    pretrained: bool
    """False for the no-pre-training control."""
    score: float
    """The test score in percent."""
    metric: str
    cost: RunCost | None = None
    """What the run cost, every attempt counted (:func:`~tokstudy.study.control_and_cost.with_attempts`)."""
    predictions: str | None = None
    """Per-word test predictions, relative to the results folder (NER only)."""
    data: dict | None = None
    """What was read of each split, by role."""
    stage: str = ""
    """The run's stage (``finetune/<tokenizer>/<task>/seed<N>``)."""

    def row(self) -> dict:
        """The run as a plain record, for the error analysis (:mod:`tokstudy.study.error_analysis`), which reads
        runs by key."""
        return dataclasses.asdict(self)


def by_task_and_tokenizer(runs: Iterable[ScoredRun]) -> dict[str, dict[str, list[ScoredRun]]]:
    """``{task: {tokenizer: [runs in the order given]}}``, tasks and tokenizers in the order they first appear."""
    out: dict[str, dict[str, list[ScoredRun]]] = {}
    for r in runs:
        out.setdefault(r.task, {}).setdefault(r.tokenizer, []).append(r)
    return out
