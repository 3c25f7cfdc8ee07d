"""The stages of a study on checkpoints (:mod:`tokstudy.study.checkpoints`), in place of tokenizers and pre-training.

::

    checkpoint/<label>      the checkpoint's folder (a hub name's cached snapshot, or the directory given)
    tokenizers              each checkpoint's own tokenizer, named by its label, its files copied
    finetune/<label>/<task>/seed<N>
                            a pre-trained checkpoint on each task, N seeds (as the study's own models)
    evaluate/<label>/<task> a checkpoint fine-tuned elsewhere, on each NER task's test split, once

Every checkpoint is resolved when the study is planned, before any stage runs: a hub name that is not cached
while offline is one line naming the model and how to fetch it, with nothing trained. A checkpoint stage is keyed
on what the model's folder holds (its configuration, tokenizer and weights files, by content or size), so a model
saved again in the same directory is fine-tuned and analysed again.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from functools import partial
from pathlib import Path

from tokstudy.data.registry import DatasetTask
from tokstudy.fileio import replace_folder, staging_folder
from tokstudy.inputs.hub_models import resolve_pretrained
from tokstudy.study.backends import EvaluateRequest, EvaluatingBackend
from tokstudy.study.checkpoints import CHECKPOINT_PREFIX, EVALUATE_PREFIX, Checkpoint
from tokstudy.study.config import StudyConfig, TaskSpec
from tokstudy.study.outcomes import TOKENIZERS, BuiltTokenizer, FinetuneOutcome, ModelBuilt, TokenizersBuilt
from tokstudy.study.sources import Sources
from tokstudy.study.stage_keys import finetune_key, task_key
from tokstudy.study.stages import Stage
from tokstudy.study.study_run import FinetuneRun, StudyRun, TrainingPlan, finetune_runs, finetune_stage_of
from tokstudy.study.tasks import task_splits
from tokstudy.tokenization.loading import load_tokenizer
from tokstudy.tokenization.model_directory import is_model_directory

#: a model folder's tokenizer files, and the configuration that names its tokenizer class
TOKENIZER_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
)
#: files whose bytes key a checkpoint; the weights (large) are keyed by name and size
_KEYED_BY_CONTENT = TOKENIZER_FILES
_WEIGHTS = (".safetensors", ".bin")


def resolve_checkpoints(checkpoints: tuple[Checkpoint, ...]) -> dict[str, Path]:
    """Each checkpoint's model folder, by label: a directory as given, a hub name's cached (or fetched) snapshot;
    one line naming the checkpoint where it is not a model directory."""
    out = {}
    for c in checkpoints:
        path = resolve_pretrained(c.model)
        if not path.is_dir() or not is_model_directory(path):
            raise ValueError(
                f"checkpoints: {c.label}: {c.model} is not a model directory (no config.json); expected what "
                "save_pretrained writes, or a Hugging Face hub name"
            )
        out[c.label] = path
    return out


def model_fingerprint(path: Path) -> str:
    """What a checkpoint's folder holds, as a short hash: the configuration and tokenizer files by content, the
    weights by name and size (hashing gigabytes at every run would cost more than it protects)."""
    digest = hashlib.sha256()
    for f in sorted(path.iterdir(), key=lambda p: p.name):
        if f.name in _KEYED_BY_CONTENT and f.is_file():
            digest.update(f"{f.name}\0".encode() + f.read_bytes())
        elif f.suffix in _WEIGHTS or f.name.endswith(".safetensors.index.json"):
            digest.update(f"{f.name}\0{f.stat().st_size}\0".encode())
    return digest.hexdigest()[:16]


def _file_key(path: str | None) -> list | None:
    """A label map file in a stage key: its name and a hash of its bytes (an edited map re-evaluates)."""
    if path is None:
        return None
    return [path, hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]]


def _stored(path: Path, root: Path) -> str:
    """``path`` as a record keeps it: relative to the results folder where it is inside, else absolute."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(Path(root).resolve()))
    except ValueError:
        return str(path)


def checkpoint_stage(work: Path, inputs: dict, *, root: Path, path: Path) -> ModelBuilt:
    """The body of a ``checkpoint/<label>`` stage: the checkpoint's folder (resolved when the study was planned).
    Its pre-training cost is not known here: None."""
    return ModelBuilt(_stored(path, root))


def checkpoint_tokenizers_stage(work: Path, inputs: dict, *, root: Path, labels: tuple[str, ...]) -> TokenizersBuilt:
    """The body of the ``tokenizers`` stage of a study on checkpoints: each checkpoint's own tokenizer, named by its
    label, its files (:data:`TOKENIZER_FILES`, the model's ``config.json`` included: it says how the tokenizer class
    reads the words) copied into ``work/<label>``, so that the results folder holds what its analysis read and the app
    and ``--report-only`` need no hub cache; trained on no sentences of the study's."""
    out = []
    for label in labels:
        source = inputs[f"{CHECKPOINT_PREFIX}/{label}"].path(root)
        staged = staging_folder(work / label)
        for name in TOKENIZER_FILES:
            if (source / name).is_file():
                shutil.copyfile(source / name, staged / name)
        folder = replace_folder(staged, work / label)
        seg = load_tokenizer(folder, name=label)
        out.append(BuiltTokenizer(label, int(seg.vocab_size), str(folder.relative_to(root)), 0))
    return TokenizersBuilt(tuple(out))


def evaluate_stage(
    work: Path,
    inputs: dict,
    *,
    root: Path,
    checkpoint: Checkpoint,
    task: TaskSpec,
    backend: EvaluatingBackend,
    config: StudyConfig,
    sources: Sources,
    progress: bool,
) -> FinetuneOutcome:
    """The body of an ``evaluate/<label>/<task>`` stage: a checkpoint fine-tuned elsewhere, scored on the task's test
    split, its word predictions written under ``work``."""
    start = time.perf_counter()
    splits, read = task_splits(task, sources)
    label_map = Path(checkpoint.label_map) if checkpoint.label_map else None
    request = EvaluateRequest(inputs[checkpoint.stage].path(root), task, splits, config.finetune, label_map)
    run = backend.evaluate(work, request, progress=progress)
    cost = {**(run.cost or {}), "stage_seconds": time.perf_counter() - start}
    return FinetuneOutcome(
        metric=run.metric,
        score=float(run.score),
        predictions=_stored(run.predictions, root) if run.predictions else None,
        cost=cost,
        data=read,
    )


def checkpoint_first_stages(run: StudyRun, resolved: dict[str, Path]) -> list[Stage]:
    """One ``checkpoint/<label>`` stage per checkpoint, then the ``tokenizers`` stage that reads theirs."""
    stages = [
        Stage(
            c.stage,
            {"model": c.model, "finetuned": c.finetuned, "files": model_fingerprint(resolved[c.label])},
            partial(checkpoint_stage, root=run.root, path=resolved[c.label]),
            codec=ModelBuilt,
        )
        for c in run.config.checkpoints
    ]
    labels = tuple(c.label for c in run.config.checkpoints)
    body = partial(checkpoint_tokenizers_stage, root=run.root, labels=labels)
    return [
        *stages,
        Stage(TOKENIZERS, {"checkpoints": list(labels)}, body, tuple(s.name for s in stages), codec=TokenizersBuilt),
    ]


def checkpoint_plan(run: StudyRun) -> TrainingPlan:
    """Every run of a study on checkpoints: the pre-trained ones fine-tuned on every task over the seeds, those
    fine-tuned already evaluated once on every NER task."""
    config = run.config
    trained = [c.label for c in config.checkpoints if not c.finetuned]
    runs = finetune_runs(config, trained, model_prefix="checkpoint")
    stages = [finetune_stage_of(run, r) for r in runs]
    for c in (c for c in config.checkpoints if c.finetuned):
        for task in (t for t in config.finetune.tasks if t.task is DatasetTask.NER):
            r = FinetuneRun(f"{EVALUATE_PREFIX}/{c.label}/{task.label}", c.label, task, 0, True, c.stage)
            runs.append(r)
            stages.append(_evaluate_stage(run, c, r))
    return TrainingPlan(stages, runs, {c.label: c.stage for c in config.checkpoints})


def _evaluate_stage(run: StudyRun, checkpoint: Checkpoint, r: FinetuneRun) -> Stage:
    if not isinstance(run.backend, EvaluatingBackend):
        raise TypeError(f"checkpoints: {checkpoint.label} is finetuned, and backend {run.backend!r} lacks evaluate")
    body = partial(
        evaluate_stage,
        root=run.root,
        checkpoint=checkpoint,
        task=r.task,
        backend=run.backend,
        config=run.config,
        sources=run.sources,
        progress=run.child_progress,
    )
    params = {
        "common": finetune_key(run.config.finetune),
        "task": task_key(r.task),
        "label_map": _file_key(checkpoint.label_map),
        "inputs": run.inputs,
    }
    return Stage(r.stage, params, body, deps=(r.model_stage,), codec=FinetuneOutcome)
