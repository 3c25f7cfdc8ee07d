"""Load a local Hugging Face encoder with a classification head, checking it first.

The checks turn the usual late, cryptic failures into errors that name the directory:
not a model directory (no ``config.json``), no fast tokenizer, a tokenizer whose ids
exceed the model's embedding matrix (an index error deep inside torch otherwise).
Nothing is ever fetched from the Hugging Face hub: a path that does not exist is an error.

>>> model, tok = load_for_task("models/albert-32k", "ner", ["O", "B-PER", "I-PER"])  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from pretrain.finetune.features import special_ids
from pretrain.finetune.trainer import resolve_device
from tokstudy.data.registry import DatasetTask
from tokstudy.errors import TokenizerLoadError

#: Name of the file a fine-tuned model directory carries beside the HF files.
FINETUNE_META = "finetune.json"


def check_model_dir(path: str | os.PathLike) -> Path:
    """The path, if it looks like a local Hugging Face model directory; else ``FileNotFoundError``/``ValueError``."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: model directory does not exist (models are never downloaded)")
    if not path.is_dir():
        raise ValueError(f"{path}: expected a Hugging Face model directory, got a file")
    if not (path / "config.json").is_file():
        raise ValueError(
            f"{path}: not a Hugging Face model directory (no config.json); expected the output of "
            "`pretrain export` or `save_pretrained`"
        )
    weights = [
        p for p in path.iterdir() if p.suffix in (".safetensors", ".bin") or p.name.endswith(".safetensors.index.json")
    ]
    if not weights:
        raise ValueError(f"{path}: config.json is there but no weights (*.safetensors or *.bin)")
    return path


def load_tokenizer(path: str | os.PathLike, **options):
    """``AutoTokenizer.from_pretrained(path, **options)``, requiring a fast tokenizer with the special tokens
    fine-tuning needs."""
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    from transformers import AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(str(path), **options)
    except Exception as exc:  # transformers raises many types here; name the place
        raise TokenizerLoadError(f"{path}: could not load a tokenizer: {exc}") from exc
    if not getattr(tok, "is_fast", False):
        raise TokenizerLoadError(
            f"{path}: tokenizer {type(tok).__name__} is not fast; word alignment needs tokenizer.json"
        )
    if len(tok) == 0:
        raise TokenizerLoadError(f"{path}: the tokenizer loaded with an empty vocabulary")
    special_ids(tok)
    return tok


def check_vocab(tokenizer, model, path: str | os.PathLike) -> None:
    """Every id the tokenizer can produce must index the model's embedding matrix."""
    n_embed = model.get_input_embeddings().num_embeddings
    if len(tokenizer) > n_embed:
        raise ValueError(
            f"{path}: tokenizer/model vocabulary mismatch: the tokenizer has {len(tokenizer)} ids but the "
            f"model's embedding matrix has {n_embed} rows (was the model trained with another tokenizer?)"
        )


def load_for_task(
    path: str | os.PathLike,
    task: DatasetTask,
    labels: Sequence[str],
    *,
    quiet: bool = True,
    dropout: float | None = None,
):
    """A model with a fresh (or, for a fine-tuned directory, its own) head for ``labels``, and its tokenizer.

    ``dropout`` replaces the model's hidden, attention and classifier dropout (``None`` keeps them)."""
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification
    from transformers.utils import logging as hf_logging

    path = check_model_dir(path)
    tok = load_tokenizer(path)
    auto = AutoModelForTokenClassification if task == DatasetTask.NER else AutoModelForSequenceClassification
    id2label = {i: lab for i, lab in enumerate(labels)}
    overrides = {}
    if dropout is not None:
        overrides = dict(
            hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout, classifier_dropout_prob=dropout
        )
    previous = hf_logging.get_verbosity()
    if quiet:  # the "newly initialised classifier" report is expected here
        hf_logging.set_verbosity_error()
    try:
        model = auto.from_pretrained(
            str(path),
            num_labels=len(labels),
            id2label=id2label,
            label2id={v: k for k, v in id2label.items()},
            **overrides,
        )
    except Exception as exc:
        raise ValueError(f"{path}: could not load the model for {task}: {exc}") from exc
    finally:
        hf_logging.set_verbosity(previous)
    check_vocab(tok, model, path)
    return model, tok


def max_positions(model, requested: int) -> int:
    """The window length: ``requested`` capped by the model's position embeddings."""
    limit = getattr(model.config, "max_position_embeddings", None)
    return min(requested, int(limit)) if limit else requested


def load_finetuned(path: str | os.PathLike, *, device: str = "auto"):
    """A model saved by a fine-tuning run (``seed-K/model``): ``(model, tokenizer, meta)``.

    ``meta`` is its ``finetune.json`` (task, labels, max_length, stride, base model, seed), its task read as a
    :class:`~tokstudy.data.registry.DatasetTask`.
    """
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification

    path = check_model_dir(path)
    meta_file = path / FINETUNE_META
    if not meta_file.is_file():
        raise ValueError(
            f"{path}: no {FINETUNE_META}; expected a model saved by `pretrain finetune` (OUT/seed-K/model)"
        )
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    try:
        meta["task"] = DatasetTask(meta["task"])
    except (KeyError, ValueError):
        raise ValueError(f"{meta_file}: task {meta.get('task')!r}: expected 'ner' or 'classification'") from None
    tok = load_tokenizer(path)
    auto = AutoModelForTokenClassification if meta["task"] is DatasetTask.NER else AutoModelForSequenceClassification
    model = auto.from_pretrained(str(path))
    check_vocab(tok, model, path)
    if model.config.num_labels != len(meta["labels"]):
        raise ValueError(
            f"{path}: the model has {model.config.num_labels} labels but {FINETUNE_META} lists {len(meta['labels'])}"
        )
    model.to(resolve_device(device))
    return model, tok, meta
