"""What the study needs from a trainer, as a protocol: the seam between the torch-free study and torch.

The study (tokenizers, stages, analysis, report) lives in the torch-free library and never imports
the pre-trainer. The three things it cannot do without torch are asked of a :class:`TrainerBackend`
that the caller passes to :func:`tokstudy.study.pipeline.run_study`:

* ``pretrain``: prepare the corpus with a tokenizer, pre-train one model (resuming from the last
  checkpoint in its work directory), export it as a Hugging Face model, and say what it cost;
* ``untrained_model``: the same architecture with its initial (random) weights, the no-pre-training
  control (:mod:`tokstudy.study.control`);
* ``finetune``: fine-tune one model on one task with one seed, and return the test score, the
  per-word predictions and what it cost.

The pre-trainer fulfils it in :mod:`pretrain.study_backend` (an arrow pointing down: ``pretrain``
imports ``tokstudy``); ``tokstudy study`` constructs that backend and passes it in; a test passes an
in-memory fake. Each method gets plain values (paths, the study's config sections, datasets) and
returns a plain dataclass, so the study never reads a trainer's own files (its checkpoints, cost
log or metrics) and a backend never sees the study's stages.

>>> class Echo:  # the smallest backend: a structural match is all the study asks
...     def pretrain(self, work, tokenizer_dir, raw_files, section, *, progress=True):
...         return PretrainedModel(work / "model")
...     def untrained_model(self, work, tokenizer_dir, section):
...         return work / "random_init"
...     def finetune(self, work, request, *, progress=True):
...         return FinetunedRun(metric="F1", score=50.0)
>>> isinstance(Echo(), TrainerBackend)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from tokstudy.data.types import Dataset
from tokstudy.study.config import FinetuneSection, PretrainSection, TaskSpec


@dataclass(frozen=True)
class PretrainedModel:
    """A pre-trained model, exported, and what its pre-training cost."""

    model_dir: Path
    """The exported Hugging Face model directory (with the tokenizer's files), inside the stage's work directory."""
    cost: dict | None = None
    """What the pre-training cost, as ``pretrain.cost.Cost.to_dict`` writes it (``wall_seconds``,
    ``device_hours``, ``energy_kwh``, ``co2e_kg``, ``method``, ...); ``None``: not recorded."""


@dataclass(frozen=True)
class FinetunedRun:
    """One fine-tuning run (one model, one task, one seed): its scores, predictions and cost."""

    metric: str
    """The task's metric as tables name it: ``"F1"`` (NER, slot filling) or ``"accuracy"``."""
    score: float
    """The test score in percent (0-100)."""
    predictions: Path | None = None
    """Per-word test predictions (the ``model_errors.predictions`` format) for NER; ``None`` otherwise."""
    dev_score: float | None = None
    """The dev score in percent of the kept epoch; ``None``: not recorded."""
    epochs_run: int | None = None
    """Epochs actually run (early stopping may end before the configured number); ``None``: not recorded."""
    cost: dict | None = None
    """What the run cost (the same fields as :attr:`PretrainedModel.cost`); ``None``: not recorded."""


@dataclass(frozen=True)
class TaskSplits:
    """The three splits of one fine-tuning task, as the study cut them (``max_train``, ``max_eval``)."""

    train: Dataset
    """Sentences to fine-tune on."""
    dev: Dataset | None
    """Sentences to choose the epoch on (early stopping); None where the corpus has no test split, so that its
    dev split is the test set: the backend then holds out part of ``train`` for early stopping."""
    test: Dataset
    """Sentences the reported score and the predictions come from."""


@dataclass(frozen=True)
class FinetuneRequest:
    """One fine-tuning run the study asks of its backend: one model, one task, one seed."""

    model_dir: Path
    """The model to fine-tune: an exported Hugging Face directory (a pre-trained model or the untrained control)."""
    task: TaskSpec
    """The task: dataset, language, labels and the caps on its splits."""
    splits: TaskSplits
    """The task's train, dev and test sentences, already cut to the task's caps."""
    seed: int
    """The fine-tuning seed (one run per seed)."""
    section: FinetuneSection
    """The fine-tuning settings, already resolved for the task (:meth:`TaskSpec.settings`)."""


@dataclass(frozen=True)
class EvaluateRequest:
    """One evaluation the study asks of its backend: a checkpoint fine-tuned elsewhere on one NER task's test split
    (:mod:`tokstudy.study.checkpoints`)."""

    model_dir: Path
    """The fine-tuned token-classification model (a resolved directory)."""
    task: TaskSpec
    splits: TaskSplits
    """The task's splits: ``test`` is scored; ``train`` gives the tag bigrams of ``viterbi`` decoding."""
    section: FinetuneSection
    """The fine-tuning settings: ``max_length`` caps the windows, ``decode`` chooses argmax or Viterbi."""
    label_map: Path | None = None
    """Model label -> dataset type or tag, for labels named otherwise (``pretrain evaluate --label-map``)."""


@runtime_checkable
class EvaluatingBackend(Protocol):
    """A backend that can also evaluate a model fine-tuned elsewhere (a study's ``finetuned`` checkpoints)."""

    def evaluate(self, work: Path, request: EvaluateRequest, *, progress: bool = True) -> FinetunedRun:
        """Predict and score ``request.splits.test`` with ``request.model_dir``; the word predictions go under
        ``work``."""
        ...


@runtime_checkable
class TrainerBackend(Protocol):
    """The trainer the study runs its pre-training, control and fine-tuning stages on.

    Every method works inside ``work``, the stage's own directory, which survives an interrupted
    run: a backend that checkpoints there can resume when the study calls it again.
    """

    def pretrain(
        self, work: Path, tokenizer_dir: Path, raw_files: list[Path], section: PretrainSection, *, progress: bool = True
    ) -> PretrainedModel:
        """Prepare ``raw_files`` with the tokenizer in ``tokenizer_dir``, pre-train ``section.model`` (a resolved
        preset path) with ``section``'s settings, resuming from the last checkpoint in ``work``, and export it."""
        ...

    def untrained_model(self, work: Path, tokenizer_dir: Path, section: PretrainSection) -> Path:
        """Write the model ``pretrain`` would start from (same preset, vocabulary and seed, step 0) under ``work``
        in the exported model's format; returns its directory."""
        ...

    def finetune(self, work: Path, request: FinetuneRequest, *, progress: bool = True) -> FinetunedRun:
        """Fine-tune ``request.model_dir`` on ``request.task`` with ``request.seed`` and ``request.section``'s
        settings; predictions and logs go under ``work``."""
        ...
