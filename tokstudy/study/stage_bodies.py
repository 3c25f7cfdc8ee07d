"""What each stage of the study does, once :mod:`tokstudy.study.pipeline` has planned it and its inputs are ready:
train the tokenizers, pre-train a model (or export a control's initial weights), fine-tune one (model, task, seed),
analyse (:func:`tokstudy.study.analysis_stage.analyse`), write the report. Each takes the stage's work folder and
the outputs of the stages it depends on (``inputs``, by stage name), and returns its outcome
(:mod:`tokstudy.study.outcomes`); the trainer is the caller's :class:`~tokstudy.study.backends.TrainerBackend`.

``control_stage`` and ``finetune_stage`` are also what ``benchmarks/bench_study_jobs.py`` times, one stage at a time.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from tokstudy.fileio import replace_folder
from tokstudy.study.backends import FinetuneRequest, TrainerBackend
from tokstudy.study.config import StudyConfig, TaskSpec
from tokstudy.study.outcomes import (
    ANALYSIS,
    TASK_TEXT,
    TOKENIZERS,
    BuiltTokenizer,
    FinetuneOutcome,
    ModelBuilt,
    ReportWritten,
    TaskTextWritten,
    TokenizersBuilt,
)
from tokstudy.study.report_sections import study_report
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import task_splits, write_task_text
from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers


def tokenizer_name(algorithm: str, vocab_size: int) -> str:
    """A tokenizer's name in the study: its algorithm and its size in thousands where it is a round number.

    >>> tokenizer_name("sp-unigram", 32000), tokenizer_name("bpe", 1500)
    ('sp-unigram-32k', 'bpe-1500')
    """
    size = f"{vocab_size // 1000}k" if vocab_size % 1000 == 0 else str(vocab_size)
    return f"{algorithm}-{size}"


def task_text_stage(work: Path, inputs: dict, *, tasks: tuple[TaskSpec, ...], sources: Sources) -> TaskTextWritten:
    """The body of the ``task_text`` stage (which depends on no other: ``inputs`` is empty): the words of every
    task's training split as raw text (:func:`~tokstudy.study.tasks.write_task_text`)."""
    return TaskTextWritten(tuple(write_task_text(work, tasks, sources)))


def _task_text(inputs: dict, root: Path) -> tuple[Path, ...]:
    """The tasks' training text, where the stage depends on the ``task_text`` stage (``add_task_text``)."""
    return inputs[TASK_TEXT].paths(root) if TASK_TEXT in inputs else ()


def tokenizers_stage(
    work: Path, inputs: dict, *, root: Path, config: StudyConfig, sources: Sources, progress: bool
) -> TokenizersBuilt:
    """The body of the ``tokenizers`` stage: every vocabulary of the section trained on one sample (with the tasks'
    training text where the stage depends on it), each in its folder ``work/<algorithm>-<size>``."""
    sec = config.tokenizers
    files = sources.raw_files(sec.corpora, sec.languages) + list(_task_text(inputs, root))
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
        out.append(BuiltTokenizer(name, t.vocab_size, str(target.relative_to(root)), t.n_sentences))
    return TokenizersBuilt(tuple(out))


def pretrain_stage(
    work: Path,
    inputs: dict,
    *,
    root: Path,
    tokenizer: str,
    backend: TrainerBackend,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
) -> ModelBuilt:
    """The body of a ``pretrain/<tokenizer>`` stage: the backend pre-trains one ALBERT with the ``tokenizers``
    stage's ``tokenizer`` on the section's corpora (and the tasks' text, where the stage depends on it); the
    model folder and what it cost."""
    start = time.perf_counter()  # the whole stage (data preparation included); the backend's cost is training's
    sec = config.pretrain
    files = sources.raw_files(sec.corpora, sec.languages) + list(_task_text(inputs, root))
    sec = dataclasses.replace(sec, model=sec.model_spec())  # the stage's key keeps the name the user wrote
    tokenizer_dir = inputs[TOKENIZERS].dirs(root)[tokenizer]
    model = backend.pretrain(work, tokenizer_dir, files, sec, progress=progress)
    cost = {**(model.cost or {}), "stage_seconds": time.perf_counter() - start}
    return ModelBuilt(str(Path(model.model_dir).relative_to(root)), cost)


def control_stage(
    work: Path, inputs: dict, *, root: Path, tokenizer: str, backend: TrainerBackend, config: StudyConfig
) -> ModelBuilt:
    """The body of a ``control/<tokenizer>`` stage: the pre-training preset's initial weights for the
    ``tokenizers`` stage's ``tokenizer``, exported in ``work``."""
    tokenizer_dir = inputs[TOKENIZERS].dirs(root)[tokenizer]
    return ModelBuilt(str(Path(backend.untrained_model(work, tokenizer_dir, config.pretrain)).relative_to(root)))


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
) -> FinetuneOutcome:
    """The body of a ``finetune/...`` stage: one (model, task, seed) run of the backend on the model of
    ``inputs[model_stage]``; its score, predictions and cost, and what was read of each split (``data``:
    :class:`~tokstudy.study.tasks.SplitRecord` by role)."""
    model_dir = inputs[model_stage].path(root)
    splits, read = task_splits(task, sources)
    request = FinetuneRequest(model_dir, task, splits, seed, task.settings(config.finetune))
    run = backend.finetune(work, request, progress=progress)
    return FinetuneOutcome(
        metric=run.metric,
        score=float(run.score),
        predictions=str(Path(run.predictions).relative_to(root)) if run.predictions else None,
        cost=run.cost,
        dev_score=run.dev_score,
        epochs_run=run.epochs_run,
        data=read,
    )


def report_stage(work: Path, inputs: dict, *, root: Path, config: StudyConfig, sources: Sources) -> ReportWritten:
    """The body of the ``report`` stage: report.md and report.html from the ``analysis`` stage's tables."""
    paths = study_report(root, inputs[ANALYSIS], config, sources)
    return ReportWritten(str(paths["markdown"].relative_to(root)), str(paths["html"].relative_to(root)))
