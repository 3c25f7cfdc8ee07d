"""A study on checkpoints pre-trained elsewhere: the ``checkpoints`` section, in place of tokenizers and pre-training.

A researcher who holds pre-trained models (the paper's own mALBERT, published as
``cservan/multilingual-albert-base-cased-32k`` / ``-64k`` / ``-128k``) runs the study on them instead of training
tokenizers and pre-training::

    checkpoints:
      - {label: malbert-32k, model: cservan/multilingual-albert-base-cased-32k}
      - {label: mine, model: runs/my-albert/final_model}
      - {label: dslim, model: dslim/bert-base-NER, finetuned: true}

Each checkpoint is a Hugging Face hub name (``owner/name[@revision]``, read from the Hugging Face cache,
``HF_HUB_OFFLINE=1`` respected: :func:`tokstudy.inputs.hub_models.resolve_pretrained`) or a directory written by
``save_pretrained``. Its tokenizer is the one its folder carries (the segmentation the model sees,
:mod:`tokstudy.tokenization.model_directory`), named by the checkpoint's label in every table. A pre-trained
checkpoint is fine-tuned on every task over the section's seeds, as the study's own models are; one that is
``finetuned`` already (a token-classification model) is only evaluated, once, on every NER task, its labels
mapped onto the dataset's tags by name (or by ``label_map``, a file as ``pretrain evaluate --label-map`` reads).

>>> Checkpoint("malbert-32k", "cservan/multilingual-albert-base-cased-32k").stage
'checkpoint/malbert-32k'
>>> Checkpoint("a b", "x")
Traceback (most recent call last):
...
ValueError: checkpoints: label 'a b' must be letters, digits, '.', '_' or '-' (it names folders and table rows)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tokstudy.data.registry import DatasetTask

#: the folder of a checkpoint's stage, ``checkpoint/<label>``, and of an evaluate-only run, ``evaluate/<label>/...``
CHECKPOINT_PREFIX, EVALUATE_PREFIX = "checkpoint", "evaluate"
_LABEL = re.compile(r"[A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint the study starts from instead of a tokenizer and a pre-trained model of its own."""

    label: str
    """Its name in the study: the row of every table, the folder of its runs (``malbert-32k``)."""
    model: str
    """A Hugging Face hub name (``owner/name[@revision]``) or a model directory."""
    finetuned: bool = False
    """Already fine-tuned for token classification: evaluated on every NER task, never trained."""
    label_map: str | None = None
    """For a ``finetuned`` checkpoint: a file naming the dataset type or tag of model labels named otherwise
    (``GPE -> LOC``), as ``pretrain evaluate --label-map`` reads it."""

    def __post_init__(self) -> None:
        if not _LABEL.fullmatch(self.label) or self.label in (".", ".."):
            raise ValueError(
                f"checkpoints: label {self.label!r} must be letters, digits, '.', '_' or '-' "
                "(it names folders and table rows)"
            )
        if not str(self.model).strip():
            raise ValueError(f"checkpoints: {self.label}: model is empty (a hub name or a model directory)")
        if self.label_map is not None and not self.finetuned:
            raise ValueError(f"checkpoints: {self.label}: label_map applies to a finetuned checkpoint only")
        if self.label_map is not None and not Path(self.label_map).is_file():
            raise ValueError(f"checkpoints: {self.label}: label_map: no file {self.label_map}")

    @property
    def stage(self) -> str:
        """The stage that resolves it (``checkpoint/<label>``), which its runs wait for."""
        return f"{CHECKPOINT_PREFIX}/{self.label}"


def check_checkpoints(checkpoints: Sequence[Checkpoint], *, control: bool, task_kinds: Sequence[DatasetTask]) -> None:
    """What a study on checkpoints cannot do, refused when its configuration is read: two checkpoints with one
    label, the no-pre-training control (it needs the pre-training preset the study did not use), and a study
    where every checkpoint is fine-tuned already but no task is NER (nothing to evaluate them on)."""
    labels = [c.label for c in checkpoints]
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise ValueError(f"checkpoints: label(s) {', '.join(twice)} given twice; each checkpoint needs its own")
    if control:
        raise ValueError(
            "finetune.no_pretraining_control needs the study's own pre-training preset; a study on checkpoints "
            "has none (leave the control out)"
        )
    if checkpoints and all(c.finetuned for c in checkpoints) and DatasetTask.NER not in task_kinds:
        raise ValueError("checkpoints: every checkpoint is finetuned, and no task is NER to evaluate them on")


def models_note(checkpoints: Sequence[Checkpoint], seeds: int) -> str:
    """The report's account of where a study's models come from, when they are checkpoints.

    >>> note = models_note((Checkpoint("m-32k", "cservan/multilingual-albert-base-cased-32k"),), 10)
    >>> note.split(": ")[1]
    '`m-32k` (`cservan/multilingual-albert-base-cased-32k`). What their pre-training cost is not known to the study.'
    """
    trained = [c for c in checkpoints if not c.finetuned]
    done = [c for c in checkpoints if c.finetuned]
    parts = []
    if trained:
        parts.append(
            "The models are checkpoints pre-trained elsewhere, each analysed with its own tokenizer (the one its "
            f"folder carries), fine-tuned here on every task over {seeds} seed{'s' if seeds > 1 else ''}: "
            + ", ".join(f"`{c.label}` (`{c.model}`)" for c in trained)
            + "."
        )
    if done:
        parts.append(
            "Fine-tuned elsewhere, evaluated once on every NER task with its own tokenizer (one run: no test of a "
            "difference): "
            + ", ".join(
                f"`{c.label}` (`{c.model}`" + (f", labels mapped by `{c.label_map}`" if c.label_map else "") + ")"
                for c in done
            )
            + "."
        )
    return " ".join(parts) + " What their pre-training cost is not known to the study."
