"""The study, end to end, as cached stages: tokenizers -> ALBERTs -> fine-tuned models -> analysis -> report.

Reads as the study does::

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

Every stage is keyed on its own settings and its inputs' keys (:mod:`tokstudy.study.stages`):
a second run reuses everything, a changed fine-tuning setting reruns fine-tuning and
analysis only, and a run killed during pre-training resumes from its last checkpoint.

The study never imports the pre-trainer (nor torch): the pre-training, control and fine-tuning
stages ask a :class:`~tokstudy.study.backends.TrainerBackend` passed in by the caller
(``tokstudy study`` passes :class:`pretrain.study_backend.PretrainBackend`). Every pre-training and
fine-tuning stage records what the backend says it cost (wall time, device-hours, kWh, CO2e).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from tokstudy.study.backends import FinetuneRequest, TaskSplits, TrainerBackend
from tokstudy.study.config import StudyConfig, TaskSpec
from tokstudy.study.report import REPORT_VERSION
from tokstudy.study.sources import Sources, resolve_sources
from tokstudy.study.stages import Pipeline, Stage

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


def tokenizer_name(algorithm: str, vocab_size: int) -> str:
    size = f"{vocab_size // 1000}k" if vocab_size % 1000 == 0 else str(vocab_size)
    return f"{algorithm}-{size}"


def _needed_corpora(config: StudyConfig) -> set[str]:
    needed = set(config.tokenizers.corpora) | set(config.pretrain.corpora)
    needed |= {t.dataset for t in config.finetune.tasks}
    needed |= {d.split(":")[0] for d in config.analysis.datasets}
    if config.analysis.parity_corpus:
        needed.add(config.analysis.parity_corpus)
    return {n for n in needed if not Path(n).exists() and not n.startswith("hf")}


#: fine-tuning settings added after results were first written, at their default (the earlier behaviour): left
#: out of the stage keys, so that a results folder of an earlier version is reused instead of trained again
_ADDED_AT_DEFAULT = {
    "dropout": None,
    "token_dropout": 0.0,
    "decode": "argmax",
    "decode_prior_scale": 0.0,
    "label_all_pieces": False,
}
#: task settings added the same way (None: the task takes the section's value)
_TASK_ADDED_AT_DEFAULT = ("dropout", "token_dropout", "label_all_pieces")


def _task_key(task: TaskSpec) -> dict:
    """A task's part of its stage key: its fields, less those added later and left unset."""
    return {k: v for k, v in dataclasses.asdict(task).items() if not (k in _TASK_ADDED_AT_DEFAULT and v is None)}


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
    root = config.results_dir()
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
    sources = resolve_sources(_needed_corpora(config), root, data_dir=config.data_dir, allow_sample=config.allow_sample)
    for note in sources.notes:
        log(f"note: {note}")
    pipe = Pipeline(root, log=log)
    inputs = sources.fingerprint()

    # 1. tokenizers ------------------------------------------------------------------
    tok_cfg = config.tokenizers
    toks = pipe.run(
        "tokenizers",
        {"section": dataclasses.asdict(tok_cfg), "inputs": inputs},
        lambda work: _train_tokenizers(work, root, config, sources, progress),
    )
    tokenizer_dirs = {t["name"]: root / t["path"] for t in toks["tokenizers"]}

    # 2. one ALBERT per tokenizer, identical settings; 2b. the no-pre-training control (the same architecture
    # with its initial, random weights); 3. fine-tuning: every model x task x seed, each its own resumable stage.
    # All of them are training runs for the backend, run `config.jobs` at a time (each waits for its model only).
    ft = config.finetune
    ft_common = {
        k: v
        for k, v in dataclasses.asdict(ft).items()
        if k not in ("tasks", "seeds", "no_pretraining_control")
        and not (k in _ADDED_AT_DEFAULT and v == _ADDED_AT_DEFAULT[k])
    }
    child_progress = progress and config.jobs <= 1  # one bar per run only when runs do not share the terminal
    stages: list[Stage] = []
    for name, tok_dir in tokenizer_dirs.items():
        stages.append(
            Stage(
                f"pretrain/{name}",
                {"section": dataclasses.asdict(config.pretrain), "inputs": inputs},
                partial(
                    _pretrain,
                    root=root,
                    tokenizer_dir=tok_dir,
                    backend=backend,
                    config=config,
                    sources=sources,
                    progress=child_progress,
                ),
                deps=("tokenizers",),
            )
        )
        if ft.no_pretraining_control:
            stages.append(
                Stage(
                    f"control/{name}",
                    {"model": config.pretrain.model, "seed": config.pretrain.seed},
                    partial(control_stage, root=root, tokenizer_dir=tok_dir, backend=backend, config=config),
                    deps=("tokenizers",),
                )
            )
    runs: list[dict] = []
    for kind, prefix, dep in (("pretrained", "finetune", "pretrain"), ("control", "finetune-control", "control")):
        if kind == "control" and not ft.no_pretraining_control:
            continue
        for name in tokenizer_dirs:
            for task in ft.tasks:
                for seed in range(ft.seeds):
                    stage = f"{prefix}/{name}/{task.label}/seed{seed}"
                    stages.append(
                        Stage(
                            stage,
                            {"common": ft_common, "task": _task_key(task), "seed": seed, "inputs": inputs},
                            partial(
                                finetune_stage,
                                root=root,
                                model_stage=f"{dep}/{name}",
                                task=task,
                                seed=seed,
                                backend=backend,
                                config=config,
                                sources=sources,
                                progress=child_progress,
                            ),
                            deps=(f"{dep}/{name}",),
                        )
                    )
                    runs.append(
                        {
                            "stage": stage,
                            "tokenizer": name,
                            "task": task.label,
                            "seed": seed,
                            "pretrained": kind == "pretrained",
                        }
                    )
    # with one job each run draws its own bars; with several, one bar counts the finished runs
    done = pipe.run_many(stages, jobs=config.jobs, progress=progress and config.jobs > 1)
    outputs = dict(zip([s.name for s in stages], done))
    runs = [{**run, **outputs[run["stage"]]} for run in runs]
    finetune_stages = [r["stage"] for r in runs]
    pretrain_cost = {name: outputs[f"pretrain/{name}"].get("cost") for name in tokenizer_dirs}

    # 4. analysis --------------------------------------------------------------------
    analysis = pipe.run(
        "analysis",
        # "tables" names the schema of what the stage writes: a folder analysed by an older schema is analysed again
        {"section": dataclasses.asdict(config.analysis), "inputs": inputs, "tables": TABLES_SCHEMA},
        lambda work: _analyse(work, root, tokenizer_dirs, runs, pretrain_cost, config, sources, progress),
        deps=["tokenizers", *finetune_stages],
    )

    # 5. report ----------------------------------------------------------------------
    report = pipe.run(
        "report",
        {
            "notes": sources.notes,
            "version": REPORT_VERSION,
            "title": config.name,
            "smoke_test": config.smoke_test,
            "decode": [config.finetune.decode, config.finetune.decode_prior_scale],
        },
        lambda work: _report(work, root, analysis, config, sources),
        deps=["analysis"],
    )
    return StudyResult(root, root / report["markdown"], root / report["html"], pipe.executed, pipe.skipped)


# --- stage bodies (control_stage and finetune_stage are public: benchmarks time one stage with them) ---


def _train_tokenizers(work: Path, root: Path, config: StudyConfig, sources: Sources, progress: bool) -> dict:
    from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers

    sec = config.tokenizers
    files = sources.raw_files(sec.corpora, sec.languages)
    trained = train_tokenizers(
        TokenizerTrainingConfig(
            inputs=tuple(files),
            output_dir=work,
            algorithm=sec.algorithm,
            vocab_sizes=sec.vocab_sizes,
            sample_size=sec.sample_size,
            seed=sec.seed,
            character_coverage=sec.character_coverage,
        ),
        progress=progress,
    )
    out = []
    for t in trained:
        name = tokenizer_name(sec.algorithm, t.vocab_size)
        target = work / name
        if Path(t.path) != target:
            os.replace(t.path, target)
        out.append(
            {
                "name": name,
                "vocab_size": t.vocab_size,
                "path": str(target.relative_to(root)),
                "n_sentences": t.n_sentences,
            }
        )
    return {"tokenizers": out}


def _pretrain(
    work: Path,
    inputs: dict,
    *,
    root: Path,
    tokenizer_dir: Path,
    backend: TrainerBackend,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
) -> dict:
    start = time.perf_counter()  # the whole stage (data preparation included); the backend's cost is training's
    sec = config.pretrain
    files = sources.raw_files(sec.corpora, sec.languages)
    sec = dataclasses.replace(sec, model=sec.model_spec())  # the stage's key keeps the name the user wrote
    model = backend.pretrain(work, tokenizer_dir, files, sec, progress=progress)
    cost = {**(model.cost or {}), "stage_seconds": time.perf_counter() - start}
    return {"model": str(Path(model.model_dir).relative_to(root)), "cost": cost}


def control_stage(
    work: Path, inputs: dict, *, root: Path, tokenizer_dir: Path, backend: TrainerBackend, config: StudyConfig
) -> dict:
    """The body of a ``control/<tokenizer>`` stage: the pre-training preset's initial weights, exported in ``work``."""
    return {"model": str(Path(backend.untrained_model(work, tokenizer_dir, config.pretrain)).relative_to(root))}


def _task_splits(task: TaskSpec, sources: Sources) -> TaskSplits:
    train = sources.dataset(task.dataset, "train", language=task.language, limit=task.max_train)
    dev = sources.dataset(task.dataset, "dev", language=task.language, limit=task.max_eval)
    test_split = "test" if task.dataset != "sst2" else "dev"  # SST-2's GLUE test set has no labels
    test = sources.dataset(task.dataset, test_split, language=task.language, limit=task.max_eval)
    return TaskSplits(train, dev, test)


def finetune_stage(
    work: Path,
    inputs: dict,
    *,
    root: Path,
    model_stage: str,
    task: TaskSpec,
    seed: int,
    backend: TrainerBackend,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
) -> dict:
    """The body of a ``finetune/...`` stage: one (model, task, seed) run of the backend; its score, predictions
    and cost. ``inputs[model_stage]["model"]`` is the model folder, relative to ``root``."""
    model_dir = root / inputs[model_stage]["model"]
    request = FinetuneRequest(model_dir, task, _task_splits(task, sources), seed, task.settings(config.finetune))
    run = backend.finetune(work, request, progress=progress)
    return {
        "metric": run.metric,
        "score": float(run.score),
        "predictions": str(Path(run.predictions).relative_to(root)) if run.predictions else None,
        "cost": run.cost,
        "dev_score": run.dev_score,
        "epochs_run": run.epochs_run,
    }


def _analyse(
    work: Path,
    root: Path,
    tokenizer_dirs: dict[str, Path],
    runs: list[dict],
    pretrain_cost: dict,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
) -> dict:
    from tokstudy.study import analysis

    return analysis.analyse(
        work, root, tokenizer_dirs, runs, config, sources, progress=progress, pretrain_cost=pretrain_cost
    )


def _report(work: Path, root: Path, analysis: dict, config: StudyConfig, sources: Sources) -> dict:
    from tokstudy.study.report import study_report

    paths = study_report(root, analysis, config, sources)
    return {"markdown": str(paths["markdown"].relative_to(root)), "html": str(paths["html"].relative_to(root))}
