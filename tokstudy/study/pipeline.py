"""The study, end to end, as cached stages: tokenizers -> ALBERTs -> fine-tuned models -> analysis -> report.

Reads as the study does::

    task_text           (tokenizers/pretrain.add_task_text) the words of every task's training split as raw text
    tokenizers          K vocabularies from one seeded sample (1:2:4 sizes by default)
    pretrain/<tok>      one ALBERT per tokenizer, identical settings (prepare + train + export)
    control/<tok>       (finetune.no_pretraining_control) the same architecture, random weights
    finetune/<tok>/<task>/seed<N>
                        each model on each task, N seeds, per-word predictions written
    finetune-control/<tok>/<task>/seed<N>
                        each control on each task, the same seeds and settings
    analysis            Table 4 (+ by type/language), Table 3 examples, correlation with
                        errors, error rate by pieces, Tables 1-2, figures
    report              report.md / report.html with the findings

A task written with a language wildcard (``masakhaner2:*``) is one task per language present
(:func:`~tokstudy.study.tasks.expand_tasks`) before any stage is planned. Every stage is keyed on its own settings
and its inputs' keys (:mod:`tokstudy.study.stages`): a second run reuses everything, a changed fine-tuning
setting reruns fine-tuning and analysis only, and a run killed during pre-training resumes from its last
checkpoint.

A stage is keyed on the settings of its section (:mod:`tokstudy.study.stage_keys`), less those added after
results were first written and left at their default.

A study on checkpoints pre-trained elsewhere (a ``checkpoints`` section: :mod:`tokstudy.study.checkpoints`) has
``checkpoint/<label>`` stages and their own tokenizers in place of the tokenizers and pre-training
(:mod:`tokstudy.study.checkpoint_stages`); fine-tuning, analysis and report are the same.

The study never imports the pre-trainer (nor torch): the pre-training, control and fine-tuning
stages ask a :class:`~tokstudy.study.backends.TrainerBackend` passed in by the caller
(``tokstudy study`` passes :class:`pretrain.study_backend.PretrainBackend`). Every pre-training and
fine-tuning stage records what the backend says it cost (wall time, device-hours, kWh, CO2e).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from tokstudy.fileio import atomic_write_text
from tokstudy.study import analysis_stage, stage_bodies
from tokstudy.study.backends import TrainerBackend
from tokstudy.study.checkpoint_stages import checkpoint_first_stages, checkpoint_plan, resolve_checkpoints
from tokstudy.study.config import StudyConfig
from tokstudy.study.control_and_cost import with_attempts
from tokstudy.study.outcomes import (
    ANALYSIS,
    TASK_TEXT,
    TOKENIZERS,
    AnalysisWritten,
    ModelBuilt,
    ReportWritten,
    TaskTextWritten,
    TokenizersBuilt,
)
from tokstudy.study.report_sections import REPORT_VERSION
from tokstudy.study.sources import resolve_sources
from tokstudy.study.stage_keys import finetune_key, section_key, task_key
from tokstudy.study.stages import Stage, StageRunner
from tokstudy.study.study_run import StudyRun, TrainingPlan, finetune_runs, finetune_stage_of
from tokstudy.study.tasks import expand_tasks, text_tasks, with_labelling_twins

__all__ = ["finetune_key", "finetune_runs", "run_study", "section_key", "task_key"]

#: Version of the analysis stage's table schemas (docs/analysis.md, "Report files"); 2 = one schema per JSON file,
#: shared with ``tokstudy report``. Part of the stage's key, so a folder analysed with version 1 is analysed again.
TABLES_SCHEMA = 2


@dataclass(frozen=True)
class StudyResult:
    """Where a finished study put its outputs."""

    root: Path
    report_markdown: Path
    report_html: Path
    executed: list[str]
    skipped: list[str]


def _needed_corpora(config: StudyConfig) -> set[str]:
    # a study on checkpoints trains no tokenizer and pre-trains no model: their corpora are not read
    needed = set() if config.checkpoints else set(config.tokenizers.corpora) | set(config.pretrain.corpora)
    needed |= {t.dataset for t in config.finetune.tasks}
    needed |= {d.split(":")[0] for d in config.analysis.datasets}
    if config.analysis.parity_corpus:
        needed.add(config.analysis.parity_corpus)
    return {n for n in needed if not Path(n).exists() and not n.startswith("hf")}


def run_study(
    config: StudyConfig,
    *,
    backend: TrainerBackend,
    log: Callable[[str], None] = print,
    progress: bool = True,
) -> StudyResult:
    """Run (or resume) the whole study, training on ``backend``; returns where the report is.

    ``backend`` is only called for stages that are not cached: a finished study re-runs without training.
    """
    if not isinstance(backend, TrainerBackend):
        raise TypeError(f"run_study: backend {backend!r} lacks pretrain/untrained_model/finetune (TrainerBackend)")
    executor = config.cluster.executor()
    if executor is not None:  # a cluster that cannot run the models is refused before anything is written
        executor.check()
    # checkpoints are resolved before anything is written: one not cached while offline is one line, nothing trained
    resolved = resolve_checkpoints(config.checkpoints)
    root = config.results_dir()
    root.mkdir(parents=True, exist_ok=True)
    atomic_write_text(root / "config.json", json.dumps(config.to_dict(), indent=2))
    sources = resolve_sources(_needed_corpora(config), root, data_dir=config.data_dir, allow_sample=config.allow_sample)
    for note in sources.notes:
        log(f"note: {note}")
    # a task `masakhaner2:*` is one task per language present: every stage below sees the languages themselves
    tasks = with_labelling_twins(expand_tasks(config.finetune.tasks, data_dir=sources.data_dir), config.finetune)
    config = dataclasses.replace(config, finetune=dataclasses.replace(config.finetune, tasks=tasks))
    pipe = StageRunner(root, log=log)
    side_by_side = config.jobs > 1 or config.cluster.address is not None
    run = StudyRun(config, root, backend, sources, sources.fingerprint(), progress and not side_by_side)

    # 0. the tasks' training words as raw text, where a section adds them; 1. tokenizers (a study on checkpoints:
    # the checkpoints and their own tokenizers)
    if config.checkpoints:
        pipe.run_many(checkpoint_first_stages(run, resolved))
        plan = checkpoint_plan(run)
    else:
        pipe.run_many(_text_and_tokenizer_stages(run, progress))
        plan = plan_stages(run, [t.name for t in pipe.outcomes[TOKENIZERS].tokenizers])
    # 2.-3. pre-training, the control, fine-tuning: `config.jobs` training runs at a time, or on a Dask cluster
    # (`config.cluster`); with one job each run draws its own bars, else one bar counts the finished runs
    pipe.run_many(plan.stages, jobs=config.jobs, executor=executor, progress=progress and side_by_side)
    # 4. analysis, 5. report
    analysis, report = _analysis_and_report_stages(run, plan, pipe, progress)
    written = pipe.run_many([analysis, report])[1]
    return StudyResult(root, root / written.markdown, root / written.html, pipe.executed, pipe.skipped)


def _text_and_tokenizer_stages(run: StudyRun, progress: bool) -> list[Stage]:
    """The ``task_text`` stage (only when ``tokenizers.add_task_text`` or ``pretrain.add_task_text``: the words
    of every task's training split as raw text) and the ``tokenizers`` stage."""
    config = run.config
    stages = []
    if config.tokenizers.add_task_text or config.pretrain.add_task_text:
        tasks = text_tasks(config.finetune.tasks)
        stages.append(
            Stage(
                TASK_TEXT,
                {"tasks": [[t.dataset, t.language, t.lenient] for t in tasks], "inputs": run.inputs},
                partial(stage_bodies.task_text_stage, tasks=tasks, sources=run.sources),
                codec=TaskTextWritten,
            )
        )
    body = partial(stage_bodies.tokenizers_stage, root=run.root, config=config, sources=run.sources, progress=progress)
    params = {"section": section_key(config.tokenizers), "inputs": run.inputs}
    deps = _task_text_deps(config.tokenizers.add_task_text)
    return [*stages, Stage(TOKENIZERS, params, body, deps, codec=TokenizersBuilt)]


def _analysis_and_report_stages(run: StudyRun, plan: TrainingPlan, pipe: StageRunner, progress: bool):
    """The ``analysis`` stage, over every fine-tuning run with what it cost, every attempt counted, and the
    ``report`` stage."""
    config, root = run.config, run.root
    # a run attempted more than once (its worker killed, then resumed elsewhere) costs what all its attempts cost
    models = set(plan.model_stages.values())
    cost = {
        name: with_attempts(pipe.outcomes[name].cost, pipe.attempts(name))
        for name in [s.name for s in plan.stages if s.name not in models] + sorted(models)
    }
    runs = tuple(r.scored(pipe.outcomes[r.stage], cost[r.stage]) for r in plan.runs)
    text = pipe.outcomes[TASK_TEXT].files if TASK_TEXT in pipe.outcomes else ()
    analysis = Stage(
        ANALYSIS,
        # "tables" names the schema of what the stage writes: a folder analysed by an older schema is analysed again
        {"section": section_key(config.analysis), "inputs": run.inputs, "tables": TABLES_SCHEMA},
        partial(
            analysis_stage.analyse,
            root=root,
            runs=runs,
            config=config,
            sources=run.sources,
            progress=progress,
            pretrain_cost={name: cost[stage] for name, stage in plan.model_stages.items()},
            task_text=text,
        ),
        (TOKENIZERS, *(r.stage for r in plan.runs)),
        codec=AnalysisWritten,
    )
    report = Stage(
        "report",
        {
            "notes": run.sources.notes,
            "version": REPORT_VERSION,
            "title": config.name,
            "smoke_test": config.smoke_test,
            "decode": [config.finetune.decode, config.finetune.decode_prior_scale],
        },
        partial(stage_bodies.report_stage, root=root, config=config, sources=run.sources),
        (ANALYSIS,),
        codec=ReportWritten,
    )
    return analysis, report


def _task_text_deps(add: bool) -> tuple[str, ...]:
    return (TASK_TEXT,) if add else ()


def plan_stages(run: StudyRun, tokenizers: list[str]) -> TrainingPlan:
    """Every training stage of the study: one ALBERT per tokenizer with identical settings (and, with
    ``finetune.no_pretraining_control``, the same architecture with its initial, random weights), then every
    model x task x seed fine-tuned, each its own resumable stage that waits for its model only."""
    stages = [stage for name in tokenizers for stage in _model_stages(run, name)]
    runs = finetune_runs(run.config, tokenizers)
    stages += [finetune_stage_of(run, r) for r in runs]
    return TrainingPlan(stages, runs, {name: f"pretrain/{name}" for name in tokenizers})


def _model_stages(run: StudyRun, name: str) -> list[Stage]:
    """``pretrain/<name>`` and, for the control, ``control/<name>``."""
    config = run.config
    pretrain = Stage(
        f"pretrain/{name}",
        {"section": section_key(config.pretrain), "inputs": run.inputs},
        partial(
            stage_bodies.pretrain_stage,
            root=run.root,
            tokenizer=name,
            backend=run.backend,
            config=config,
            sources=run.sources,
            progress=run.child_progress,
        ),
        deps=(TOKENIZERS, *_task_text_deps(config.pretrain.add_task_text)),
        codec=ModelBuilt,
    )
    if not config.finetune.no_pretraining_control:
        return [pretrain]
    control = Stage(
        f"control/{name}",
        {"model": config.pretrain.model, "seed": config.pretrain.seed},
        partial(stage_bodies.control_stage, root=run.root, tokenizer=name, backend=run.backend, config=config),
        deps=(TOKENIZERS,),
        codec=ModelBuilt,
    )
    return [pretrain, control]
