"""What every stage of one run of the study needs, and the plan of its training runs.

:class:`StudyRun` carries what the stages share (the configuration, the results folder, the trainer, the data);
:class:`FinetuneRun` is one (model, task, seed) run of the plan, named by its stage; :class:`TrainingPlan` is the
training stages in the order they are handed to the stage runner, with their runs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tokstudy.study import stage_bodies
from tokstudy.study.backends import TrainerBackend
from tokstudy.study.config import StudyConfig, TaskSpec
from tokstudy.study.outcomes import FinetuneOutcome
from tokstudy.study.run_cost import RunCost
from tokstudy.study.scored_runs import ScoredRun
from tokstudy.study.sources import Sources
from tokstudy.study.stage_keys import finetune_key, task_key
from tokstudy.study.stages import Stage


@dataclass(frozen=True)
class StudyRun:
    """What every stage of one run of the study needs besides its own settings."""

    config: StudyConfig
    root: Path
    """The results folder (``config.results_dir()``)."""
    backend: TrainerBackend
    sources: Sources
    inputs: dict
    """The data's fingerprint (:meth:`~tokstudy.study.sources.Sources.fingerprint`), part of every stage key."""
    child_progress: bool
    """One progress bar per training run: only when runs do not share the terminal (``jobs <= 1``, no cluster)."""


@dataclass(frozen=True)
class FinetuneRun:
    """One fine-tuning run of the plan: its stage and what it fine-tunes."""

    stage: str
    tokenizer: str
    task: TaskSpec
    seed: int
    pretrained: bool
    """False for the no-pre-training control."""
    model_stage: str
    """The stage of the model it fine-tunes (``pretrain/<tokenizer>``, ``control/<tokenizer>`` or
    ``checkpoint/<label>``), which it waits for."""

    def scored(self, outcome: FinetuneOutcome, cost: RunCost | None) -> ScoredRun:
        """The run as the analysis reads it: the task by its label, with what its stage gave and what it cost
        (every attempt counted)."""
        return ScoredRun(
            tokenizer=self.tokenizer,
            task=self.task.label,
            seed=self.seed,
            pretrained=self.pretrained,
            score=outcome.score,
            metric=outcome.metric,
            cost=cost,
            predictions=outcome.predictions,
            data=outcome.data,
            stage=self.stage,
        )


@dataclass(frozen=True)
class TrainingPlan:
    """The training stages of a run, in the order they are handed to the pipeline, and the fine-tuning runs."""

    stages: list[Stage]
    runs: list[FinetuneRun]
    model_stages: dict[str, str]
    """Each tokenizer's pre-trained model, by the stage that made it (``pretrain/<tokenizer>``) or resolved it
    (``checkpoint/<label>``): what its pre-training cost is read from."""


#: the fine-tuning stages' folder and the model stage's folder, pre-trained or control
_FINETUNE_PREFIX = {True: ("finetune", "pretrain"), False: ("finetune-control", "control")}


def finetune_runs(config: StudyConfig, tokenizers: list[str], *, model_prefix: str = "pretrain") -> list[FinetuneRun]:
    """Every (model, task, seed) fine-tuning run, pre-trained models first, then the controls; a pre-trained model
    is the stage ``<model_prefix>/<tokenizer>`` (``checkpoint``: a checkpoint the study starts from)."""
    ft = config.finetune
    kinds = (True, False) if ft.no_pretraining_control else (True,)
    return [
        FinetuneRun(
            f"{_FINETUNE_PREFIX[pretrained][0]}/{name}/{task.label}/seed{seed}",
            name,
            task,
            seed,
            pretrained,
            f"{model_prefix if pretrained else _FINETUNE_PREFIX[False][1]}/{name}",
        )
        for pretrained, name, task, seed in itertools.product(kinds, tokenizers, ft.tasks, range(ft.seeds))
    ]


def finetune_stage_of(run: StudyRun, r: FinetuneRun) -> Stage:
    """The stage of one fine-tuning run, keyed on the section's settings, its task's and its seed."""
    config = run.config
    return Stage(
        r.stage,
        {"common": finetune_key(config.finetune), "task": task_key(r.task), "seed": r.seed, "inputs": run.inputs},
        partial(
            stage_bodies.finetune_stage,
            root=run.root,
            model_stage=r.model_stage,
            task=r.task,
            seed=r.seed,
            backend=run.backend,
            config=config,
            sources=run.sources,
            progress=run.child_progress,
        ),
        deps=(r.model_stage,),
        codec=FinetuneOutcome,
    )
