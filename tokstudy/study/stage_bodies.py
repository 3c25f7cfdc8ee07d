"""What each stage of the study does, once :mod:`tokstudy.study.pipeline` has planned it and its inputs are ready:
train the tokenizers, pre-train a model (or export a control's initial weights), fine-tune one (model, task, seed),
analyse, write the report. Each takes the stage's work folder first and returns the JSON-able record the stage
keeps; the trainer is the caller's :class:`~tokstudy.study.backends.TrainerBackend`.

``control_stage`` and ``finetune_stage`` are also what ``benchmarks/bench_study_jobs.py`` times, one stage at a time.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from tokstudy.fileio import replace_folder
from tokstudy.study import analysis_stage
from tokstudy.study.backends import FinetuneRequest, TrainerBackend
from tokstudy.study.config import StudyConfig, TaskSpec
from tokstudy.study.report_sections import study_report
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import task_splits
from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers


def tokenizer_name(algorithm: str, vocab_size: int) -> str:
    """A tokenizer's name in the study: its algorithm and its size in thousands where it is a round number.

    >>> tokenizer_name("sp-unigram", 32000), tokenizer_name("bpe", 1500)
    ('sp-unigram-32k', 'bpe-1500')
    """
    size = f"{vocab_size // 1000}k" if vocab_size % 1000 == 0 else str(vocab_size)
    return f"{algorithm}-{size}"


def tokenizers_stage(
    work: Path, root: Path, config: StudyConfig, sources: Sources, progress: bool, extra_files: tuple[Path, ...] = ()
) -> dict:
    """The body of the ``tokenizers`` stage: every vocabulary of the section trained on one sample, each in its
    folder ``work/<algorithm>-<size>``; their names, sizes and folders (relative to ``root``)."""
    sec = config.tokenizers
    files = sources.raw_files(sec.corpora, sec.languages) + list(extra_files)
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
            replace_folder(t.path, target)  # a folder left there by an earlier run is replaced whole
        out.append(
            {
                "name": name,
                "vocab_size": t.vocab_size,
                "path": str(target.relative_to(root)),
                "n_sentences": t.n_sentences,
            }
        )
    return {"tokenizers": out}


def pretrain_stage(
    work: Path,
    inputs: dict,
    *,
    root: Path,
    tokenizer_dir: Path,
    backend: TrainerBackend,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
    extra_files: tuple[Path, ...] = (),
) -> dict:
    """The body of a ``pretrain/<tokenizer>`` stage: the backend pre-trains one ALBERT on the section's corpora (and
    the tasks' text, when added); the model folder (relative to ``root``) and what it cost."""
    start = time.perf_counter()  # the whole stage (data preparation included); the backend's cost is training's
    sec = config.pretrain
    files = sources.raw_files(sec.corpora, sec.languages) + list(extra_files)
    sec = dataclasses.replace(sec, model=sec.model_spec())  # the stage's key keeps the name the user wrote
    model = backend.pretrain(work, tokenizer_dir, files, sec, progress=progress)
    cost = {**(model.cost or {}), "stage_seconds": time.perf_counter() - start}
    return {"model": str(Path(model.model_dir).relative_to(root)), "cost": cost}


def control_stage(
    work: Path, inputs: dict, *, root: Path, tokenizer_dir: Path, backend: TrainerBackend, config: StudyConfig
) -> dict:
    """The body of a ``control/<tokenizer>`` stage: the pre-training preset's initial weights, exported in ``work``."""
    return {"model": str(Path(backend.untrained_model(work, tokenizer_dir, config.pretrain)).relative_to(root))}


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
    and cost, and what was read of each split (``data``: :class:`~tokstudy.study.tasks.SplitRecord` by role).
    ``inputs[model_stage]["model"]`` is the model folder, relative to ``root``."""
    model_dir = root / inputs[model_stage]["model"]
    splits, read = task_splits(task, sources)
    request = FinetuneRequest(model_dir, task, splits, seed, task.settings(config.finetune))
    run = backend.finetune(work, request, progress=progress)
    return {
        "metric": run.metric,
        "score": float(run.score),
        "predictions": str(Path(run.predictions).relative_to(root)) if run.predictions else None,
        "cost": run.cost,
        "dev_score": run.dev_score,
        "epochs_run": run.epochs_run,
        "data": read,
    }


def analyse_stage(
    work: Path,
    root: Path,
    tokenizer_dirs: dict[str, Path],
    runs: list[dict],
    pretrain_cost: dict,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
    task_text: list[dict],
) -> dict:
    """The body of the ``analysis`` stage (:func:`tokstudy.study.analysis_stage.analyse`)."""
    return analysis_stage.analyse(
        work,
        root,
        tokenizer_dirs,
        runs,
        config,
        sources,
        progress=progress,
        pretrain_cost=pretrain_cost,
        task_text=task_text,
    )


def report_stage(work: Path, root: Path, analysis: dict, config: StudyConfig, sources: Sources) -> dict:
    """The body of the ``report`` stage: report.md and report.html, their paths relative to ``root``."""
    paths = study_report(root, analysis, config, sources)
    return {"markdown": str(paths["markdown"].relative_to(root)), "html": str(paths["html"].relative_to(root))}
