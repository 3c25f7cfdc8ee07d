"""Settings of one fine-tuning run (one model, one dataset, N seeds).

A :class:`FinetuneConfig` is a typed dataclass; YAML files in ``pretrain/configs/finetune_*.yaml``
mirror its fields (one test loads every shipped file). Values are validated when the
object is built, so a typo fails before any model is loaded.

>>> cfg = FinetuneConfig(model="models/albert-32k", task="ner", dataset="conll2003", n_seeds=3)
>>> cfg.seeds()
[1, 2, 3]
>>> FinetuneConfig(model="m", task="ner", dataset="conll2003", stride=200, max_length=128)
Traceback (most recent call last):
...
ValueError: FinetuneConfig: stride=200 must be below half the pieces a window holds (max_length - 2 = 126)
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args

from tokstudy.configfile import build_config, read_config, require
from tokstudy.data.registry import DatasetTask
from tokstudy.errors import ConfigError
from tokstudy.training_vocabulary import DECODINGS, Decoding

#: what a model is fine-tuned for: a label per word (NER; slot filling is trained as NER) or per sentence. The
#: registry's :class:`~tokstudy.data.registry.DatasetTask`, so that one vocabulary runs from corpus to results;
#: files and flags spell it ``ner`` / ``classification``, read once in :meth:`FinetuneConfig.__post_init__`
Task = Literal[DatasetTask.NER, DatasetTask.CLASSIFICATION]
UnseenLabelPolicy = Literal["error", "keep", "map_o"]
#: every task's spelling
TASKS: tuple[str, ...] = tuple(t.value for t in get_args(Task))
UNSEEN_LABEL_POLICIES: tuple[str, ...] = get_args(UnseenLabelPolicy)


@dataclass(frozen=True)
class FinetuneConfig:
    """One fine-tuning setting: a model, a dataset, a task and the training recipe."""

    model: str
    """Directory of a Hugging Face encoder (config.json, weights, tokenizer files)."""
    task: Task
    """``ner`` (token classification: NER and slot filling) or ``classification`` (one label per sentence)."""
    dataset: str
    """Registry name (``conll2003``, ``conll2002_es``, ``wikiann``, ``snips``, ``atis``, ``sst2``, ...)."""
    language: str | None = None
    """Language for multilingual corpora (``wikiann``); ``None`` for single-language ones."""
    data_dir: str | None = None
    """Folder holding the corpora; ``None`` uses ``$TOKSTUDY_DATA`` (see :mod:`tokstudy.datalocation`)."""
    model_name: str | None = None
    """Column name in results tables; ``None`` uses the model directory's name."""
    train_split: str = "train"
    """Split to train on."""
    dev_split: str | None = None
    """Split for early stopping; ``None``: ``dev`` when the corpus has a test split, else a held-out
    ``holdout_fraction`` of train (SST-2 has no labelled test set, so its ``dev`` is the test)."""
    test_split: str | None = None
    """Split to report; ``None``: ``test`` when the corpus has one, else ``dev``."""
    holdout_fraction: float = 0.05
    """Fraction of train held out as dev when the corpus has no separate dev split (seeded by ``holdout_seed``)."""
    holdout_seed: int = 0
    """Seed of the held-out dev split (fixed across run seeds, so every seed sees the same dev)."""
    n_seeds: int = 10
    """Number of runs; the paper uses 10. Seeds are ``first_seed .. first_seed + n_seeds - 1``."""
    first_seed: int = 1
    """First seed."""
    epochs: int = 3
    """Maximum number of passes over the training data."""
    batch_size: int = 32
    """Training batch size (windows or sentences)."""
    eval_batch_size: int = 64
    """Batch size for dev/test prediction."""
    learning_rate: float = 5e-5
    """Peak AdamW learning rate."""
    weight_decay: float = 0.01
    """AdamW weight decay (not applied to biases and LayerNorm weights)."""
    warmup_ratio: float = 0.1
    """Fraction of the optimisation steps with a linear warm-up; then linear decay to 0."""
    max_grad_norm: float = 1.0
    """Gradient clipping norm (0 disables it)."""
    patience: int = 2
    """Early stopping: dev evaluations without improvement before stopping (0 disables early stopping)."""
    evals_per_epoch: int = 1
    """Dev evaluations per epoch (early stopping checks after each)."""
    max_length: int = 128
    """Pieces per window including ``[CLS]``/``[SEP]``; capped by the model's position embeddings."""
    stride: int = 32
    """Left-context pieces carried into the next window of a long sentence (those words are not
    labelled again: every word is predicted exactly once)."""
    dropout: float | None = None
    """Dropout for fine-tuning (hidden states, attention probabilities and the classifier head); ``None`` keeps
    the model's own (ALBERT v2 and the pre-trainer's exports: 0, which lets a small model memorise CoNLL-2003's
    training entities within two epochs)."""
    token_dropout: float = 0.0
    """Probability that a training input piece is replaced by ``<unk>`` (word dropout, as in Lample et al. 2016 for
    NER): the model learns to label a word from its context and cannot rely on having seen it in training.
    Never applied at evaluation."""
    decode: Decoding = "argmax"
    """Token tasks: ``argmax`` labels each word on its own; ``viterbi`` picks each sentence's best label sequence
    under the training split's label bigrams (no ``B-PER B-PER`` for one name; see
    :mod:`pretrain.finetune.decoding`). Dev F1 for early stopping is decoded the same way."""
    decode_prior_scale: float = 0.0
    """Viterbi only: how much of the training label prior is divided out of the model's log-probabilities
    (0: none; 1: hybrid decoding with scaled likelihoods; see :mod:`pretrain.finetune.decoding`)."""
    label_all_pieces: bool = False
    """Train on every piece of a word (same label) instead of its first piece only; the word predictions read
    the first piece (``piece_predictions`` writes every piece's)."""
    unseen_labels: UnseenLabelPolicy = "error"
    """A dev/test label absent from train: ``error`` (default), ``keep`` (kept as gold, the model
    cannot predict it, so it counts as a miss), or ``map_o`` (token tasks: gold tag replaced by ``O``)."""
    group_by_length: bool = True
    """Batch windows of similar length together (less padding; batches are still shuffled)."""
    max_train_sentences: int | None = None
    """Use only the first N training sentences (quick runs, tests); ``None`` uses all."""
    max_eval_sentences: int | None = None
    """Use only the first N dev and test sentences; ``None`` uses all."""
    device: str = "auto"
    """``auto`` (CUDA when available), ``cpu``, ``cuda`` or ``cuda:N``."""
    autocast_bf16: bool = True
    """On CUDA, training and prediction forward passes run under ``torch.autocast(bfloat16)`` (float32 weights and
    AdamW state); ignored on CPU, which always runs float32."""
    save_models: bool = True
    """Save each seed's fine-tuned model (needed later by ``pretrain evaluate``)."""
    predict_splits: tuple[str, ...] = ("test",)
    """Which of ``dev``/``test`` get a per-word predictions file."""
    piece_predictions: bool = False
    """Token tasks: beside each per-word predictions file, write every piece's label and probabilities
    (``predictions.<split>.pieces.tsv``, read by ``tokstudy pieces``). Any model can be read this way: with
    ``label_all_pieces`` every piece was trained; otherwise the pieces after the first are a diagnostic."""
    progress: bool = True
    """Show tqdm progress bars."""
    extra: dict = field(default_factory=dict)
    """Free-form metadata copied into results (e.g. vocabulary size)."""

    def __post_init__(self) -> None:
        w = "FinetuneConfig"
        require(bool(self.model), w, "model: a model directory is required")
        require(self.task in TASKS, w, f"task={self.task!r}: expected one of {TASKS}")
        object.__setattr__(self, "task", DatasetTask(self.task))  # the spelling read once, here
        require(
            self.unseen_labels in UNSEEN_LABEL_POLICIES,
            w,
            f"unseen_labels={self.unseen_labels!r}: expected one of {UNSEEN_LABEL_POLICIES}",
        )
        require(
            self.unseen_labels != "map_o" or self.task is DatasetTask.NER,
            w,
            "unseen_labels='map_o' only applies to token tasks (task='ner')",
        )
        for name in ("n_seeds", "epochs", "batch_size", "eval_batch_size", "evals_per_epoch"):
            require(getattr(self, name) >= 1, w, f"{name}={getattr(self, name)} must be >= 1")
        require(self.patience >= 0, w, f"patience={self.patience} must be >= 0")
        require(0 < self.learning_rate < 1, w, f"learning_rate={self.learning_rate} must be in (0, 1)")
        require(self.dropout is None or 0 <= self.dropout < 1, w, f"dropout={self.dropout} must be in [0, 1) or None")
        require(0 <= self.token_dropout < 1, w, f"token_dropout={self.token_dropout} must be in [0, 1)")
        require(self.decode in DECODINGS, w, f"decode={self.decode!r}: expected one of {DECODINGS}")
        require(0 <= self.decode_prior_scale <= 1, w, f"decode_prior_scale={self.decode_prior_scale} must be in [0, 1]")
        require(
            self.decode_prior_scale == 0 or self.decode == "viterbi",
            w,
            f"decode_prior_scale={self.decode_prior_scale} only applies with decode='viterbi'",
        )
        require(0 <= self.warmup_ratio < 1, w, f"warmup_ratio={self.warmup_ratio} must be in [0, 1)")
        require(0 < self.holdout_fraction < 1, w, f"holdout_fraction={self.holdout_fraction} must be in (0, 1)")
        require(self.max_length >= 4, w, f"max_length={self.max_length} must be >= 4 ([CLS], [SEP] and some pieces)")
        require(
            0 <= self.stride and 2 * self.stride < self.max_length - 2,
            w,
            f"stride={self.stride} must be below half the pieces a window holds "
            f"(max_length - 2 = {self.max_length - 2})",
        )
        for name in ("max_train_sentences", "max_eval_sentences"):
            value = getattr(self, name)
            require(value is None or value >= 1, w, f"{name}={value} must be >= 1 or None")
        bad = [s for s in self.predict_splits if s not in ("dev", "test")]
        require(not bad, w, f"predict_splits={self.predict_splits}: expected 'dev' and/or 'test', got {bad}")
        object.__setattr__(self, "predict_splits", tuple(self.predict_splits))

    def seeds(self) -> list[int]:
        """The run seeds, in order."""
        return list(range(self.first_seed, self.first_seed + self.n_seeds))

    def display_name(self) -> str:
        """The model's name in results tables."""
        return self.model_name or Path(os.path.normpath(self.model)).name

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form (tuples become lists, the task its spelling)."""
        out = dataclasses.asdict(self)
        out["task"] = self.task.value
        out["predict_splits"] = list(self.predict_splits)
        return out

    def training_key(self) -> dict[str, Any]:
        """The fields that change a seed's result (used to decide whether a finished seed can be reused)."""
        ignore = {
            "n_seeds",
            "first_seed",
            "progress",
            "device",
            "model_name",
            "extra",
            "save_models",
            "eval_batch_size",
            "piece_predictions",  # an extra output of the same model
        }
        # settings added later, at their default (the earlier behaviour), are left out: finished seeds of an
        # earlier version stay reusable
        added_at_default = {
            "dropout": None,
            "token_dropout": 0.0,
            "decode": "argmax",
            "decode_prior_scale": 0.0,
            "autocast_bf16": True,
        }
        return {
            k: v
            for k, v in self.to_dict().items()
            if k not in ignore and not (k in added_at_default and v == added_at_default[k])
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "<dict>") -> "FinetuneConfig":
        """Build from a mapping; unknown keys are an error naming ``source``."""
        known = {f.name for f in fields(cls)}
        missing = [k for k in ("model", "task", "dataset") if not data.get(k)]
        if missing and set(data) <= known:  # an unknown key is reported first, by build_config
            raise ConfigError(f"missing required setting(s) {missing} (give them in the file or as flags)", path=source)
        return build_config(cls, data, source=source)

    @classmethod
    def from_yaml(cls, path: str | os.PathLike, **overrides: Any) -> "FinetuneConfig":
        """Read a YAML file; ``overrides`` (e.g. from the command line) win over the file's values."""
        data = read_config(path)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_dict(data, source=str(path))
