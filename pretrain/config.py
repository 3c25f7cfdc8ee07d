"""Typed configurations of the ALBERT model and of a training run, mirrored by ``pretrain/configs/*.yaml``.

Two dataclasses describe everything the trainer needs beside the data and the tokenizer:

* :class:`ModelConfig`: the architecture. Presets follow the ALBERT paper (Lan et al., table 1):
  ``tiny`` (the default, a CPU smoke test), ``base`` (the mALBERT model: E=128, H=768, 12 layers,
  12 heads, FFN 3072), ``large``, ``xlarge``, ``xxlarge``. The vocabulary size is *not* part of it:
  it always comes from the tokenizer / example store, so a model cannot silently disagree with its
  tokenizer.
* :class:`TrainConfig`: batch, optimiser, schedule, checkpointing, logging, seed and the path of a
  plain DeepSpeed JSON (ZeRO stage, bf16/fp16, clipping) that is handed to DeepSpeed as it is.

>>> ModelConfig.preset("base").hidden_size
768
>>> ModelConfig(sharing="groups", num_layers=4, num_groups=2).albert_groups()
(2, 1)
>>> TrainConfig(batch_size=8, total_steps=10, warmup_steps=2).lr
0.0003125
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from tokstudy.configfile import build_config, read_config, require
from tokstudy.training_vocabulary import COMPILE_MODES, CompileMode

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
SharingMode = Literal["all", "none", "groups"]
Optimizer = Literal["auto", "lamb", "adamw"]
SHARING_MODES: tuple[str, ...] = get_args(SharingMode)
OPTIMIZERS: tuple[str, ...] = get_args(Optimizer)
CompileKind = Literal["default", "max-autotune-no-cudagraphs", "reduce-overhead"]
COMPILE_KINDS: tuple[str, ...] = get_args(CompileKind)
AttentionKernel = Literal["flash", "cudnn"]
ATTENTION_KERNELS: tuple[str, ...] = get_args(AttentionKernel)


@dataclass(frozen=True)
class ModelConfig:
    """An ALBERT architecture (everything but the vocabulary size, which the tokenizer fixes)."""

    name: str = "tiny"
    """A label for logs and checkpoints (the preset's name, or your own)."""
    embedding_size: int = 32
    """E: width of the factorised token embeddings (V x E, then an E x H projection). Independent of H."""
    hidden_size: int = 64
    """H: width of the transformer layers."""
    num_layers: int = 2
    """Number of transformer layers applied (shared layers count once per application)."""
    num_heads: int = 2
    """Attention heads; must divide ``hidden_size``."""
    intermediate_size: int = 128
    """Width of the feed-forward layer (4 H in the paper's presets)."""
    sharing: SharingMode = "all"
    """Cross-layer parameter sharing: ``all`` (one block applied ``num_layers`` times, ALBERT's default),
    ``none`` (BERT-like, one block per layer) or ``groups`` (``num_groups`` blocks, each shared by
    ``num_layers / num_groups`` consecutive layers). Stored as transformers' ``num_hidden_groups``."""
    num_groups: int = 1
    """Number of distinct blocks when ``sharing == "groups"``; must divide ``num_layers``."""
    hidden_act: str = "gelu_new"
    """Activation of the feed-forward layer and of the MLM head (ALBERT uses ``gelu_new``)."""
    dropout: float = 0.0
    """Dropout on embeddings and hidden states; 0 as in ALBERT v2."""
    attention_dropout: float = 0.0
    """Dropout on attention probabilities; 0 as in ALBERT v2."""
    classifier_dropout: float = 0.0
    """Dropout before the sentence-order classifier."""
    max_position_embeddings: int = 512
    """Longest sequence the position embeddings cover; must be >= the store's ``max_seq_length``."""
    type_vocab_size: int = 2
    """Segment (token type) embeddings: A and B."""
    initializer_range: float = 0.02
    """Standard deviation of the truncated-normal weight initialisation."""
    layer_norm_eps: float = 1e-12
    """Epsilon of every LayerNorm."""

    def __post_init__(self) -> None:
        w = f"ModelConfig {self.name!r}"
        for name in (
            "embedding_size",
            "hidden_size",
            "num_layers",
            "num_heads",
            "intermediate_size",
            "num_groups",
            "max_position_embeddings",
            "type_vocab_size",
        ):
            require(int(getattr(self, name)) >= 1, w, f"{name} must be >= 1, got {getattr(self, name)}")
        require(
            self.hidden_size % self.num_heads == 0,
            w,
            f"num_heads ({self.num_heads}) must divide hidden_size ({self.hidden_size})",
        )
        require(self.sharing in SHARING_MODES, w, f"sharing must be one of {SHARING_MODES}, got {self.sharing!r}")
        if self.sharing == "groups":
            require(
                self.num_layers % self.num_groups == 0,
                w,
                f"num_groups ({self.num_groups}) must divide num_layers ({self.num_layers})",
            )
        for name in ("dropout", "attention_dropout", "classifier_dropout"):
            require(0.0 <= getattr(self, name) < 1.0, w, f"{name} must be in [0, 1), got {getattr(self, name)}")
        require(
            self.initializer_range > 0 and self.layer_norm_eps > 0,
            w,
            "initializer_range and layer_norm_eps must be > 0",
        )

    # -- derived values -------------------------------------------------------------------------
    def albert_groups(self) -> tuple[int, int]:
        """``(num_hidden_groups, inner_group_num)`` for transformers' ``AlbertConfig``.

        ``inner_group_num`` stays 1: every application of a group is one layer, so ``num_layers``
        means what it says and the checkpoint is a standard ALBERT one.
        """
        groups = {"all": 1, "none": self.num_layers, "groups": self.num_groups}[self.sharing]
        return groups, 1

    def to_albert_config(self, *, vocab_size: int, special_ids: Mapping[str, int] | None = None):
        """A ``transformers.AlbertConfig`` for this architecture and ``vocab_size`` (SDPA attention)."""
        # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
        from transformers import AlbertConfig

        require(vocab_size >= 8, f"ModelConfig {self.name!r}", f"vocab_size must be >= 8, got {vocab_size}")
        ids = dict(special_ids or {})
        groups, inner = self.albert_groups()
        config = AlbertConfig(
            vocab_size=int(vocab_size),
            embedding_size=self.embedding_size,
            hidden_size=self.hidden_size,
            num_hidden_layers=self.num_layers,
            num_hidden_groups=groups,
            inner_group_num=inner,
            num_attention_heads=self.num_heads,
            intermediate_size=self.intermediate_size,
            hidden_act=self.hidden_act,
            hidden_dropout_prob=self.dropout,
            attention_probs_dropout_prob=self.attention_dropout,
            classifier_dropout_prob=self.classifier_dropout,
            max_position_embeddings=self.max_position_embeddings,
            type_vocab_size=self.type_vocab_size,
            initializer_range=self.initializer_range,
            layer_norm_eps=self.layer_norm_eps,
            pad_token_id=int(ids.get("pad", 0)),
            bos_token_id=int(ids.get("cls", 2)),
            eos_token_id=int(ids.get("sep", 3)),
        )
        config._attn_implementation = "sdpa"
        return config

    # -- presets and files ----------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str) -> ModelConfig:
        """One of :data:`MODEL_PRESETS` by name."""
        if name not in MODEL_PRESETS:
            raise ValueError(f"unknown model preset {name!r}; choose from {sorted(MODEL_PRESETS)} or give a YAML file")
        return MODEL_PRESETS[name]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "model config") -> ModelConfig:
        return _from_dict(cls, data, where)

    @classmethod
    def load(cls, name_or_path: str | Path) -> ModelConfig:
        """A preset name (``tiny``, ``base``, ...) or a YAML file holding the fields."""
        if str(name_or_path) in MODEL_PRESETS:
            return MODEL_PRESETS[str(name_or_path)]
        return cls.from_dict(load_mapping(name_or_path), where=str(name_or_path))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _paper_preset(name: str, h: int, layers: int, heads: int) -> ModelConfig:
    return ModelConfig(
        name=name, embedding_size=128, hidden_size=h, num_layers=layers, num_heads=heads, intermediate_size=4 * h
    )


#: The shipped architectures (ALBERT paper, table 1; ``base`` is mALBERT's). ``configs/model_<name>.yaml`` mirror them.
MODEL_PRESETS: dict[str, ModelConfig] = {
    "tiny": ModelConfig(),
    "base": _paper_preset("base", 768, 12, 12),
    "large": _paper_preset("large", 1024, 24, 16),
    "xlarge": _paper_preset("xlarge", 2048, 24, 16),
    "xxlarge": _paper_preset("xxlarge", 4096, 12, 64),
}


@dataclass(frozen=True)
class TrainConfig:
    """How one pre-training run goes (the model and data are given separately)."""

    batch_size: int = 128
    """Global batch in sequences per optimiser step, summed over processes and accumulation (mALBERT: 128)."""
    micro_batch_size: int | None = None
    """Sequences per forward pass per process; ``None`` = ``batch_size / world_size`` (no accumulation).
    Gradient accumulation steps = ``batch_size / (micro_batch_size * world_size)``."""
    lr: float = 3.125e-4
    """Peak learning rate, reached after warm-up (mALBERT: 3.125e-4)."""
    warmup_steps: int = 0
    """Linear warm-up from 0 to ``lr`` over this many steps; then linear decay to 0 at ``total_steps``."""
    total_steps: int = 100
    """Optimiser steps of the whole run."""
    optimizer: Optimizer = "auto"
    """``lamb`` (:class:`pretrain.lamb.Lamb`: the trust ratio per parameter tensor, any device), ``adamw``
    (torch's), or ``auto``: LAMB on CUDA, AdamW on CPU. LAMB needs a DeepSpeed JSON that does not flatten
    parameters (ZeRO stage 0, DeepSpeed's bf16/fp16 off; mixed precision then comes from ``autocast_bf16``).
    Ignored when the DeepSpeed JSON names an optimizer."""
    weight_decay: float = 0.01
    """Decoupled weight decay; biases and LayerNorm weights are exempt."""
    betas: tuple[float, float] = (0.9, 0.999)
    """Adam/LAMB moment coefficients."""
    eps: float = 1e-6
    """Adam/LAMB epsilon."""
    checkpoint_every: int = 100
    """Write a checkpoint every this many steps (and at the end)."""
    keep_last: int = 3
    """Checkpoints kept on disk; older ones are deleted once a newer one is complete."""
    log_every: int = 10
    """Write a CSV/TensorBoard row every this many steps."""
    seed: int = 42
    """Seeds weight initialisation, the data order (a permutation per epoch) and all RNGs."""
    deepspeed_config: str = "ds_cpu.json"
    """A plain DeepSpeed JSON (ZeRO stage, bf16/fp16, gradient_clipping). A bare name (no ``/``) is a shipped
    config, looked up in ``pretrain/configs/`` only; give a path (``./my_ds.json``) for your own file.
    Batch sizes in it must agree with this config or be omitted."""
    autocast_bf16: bool = True
    """On CUDA, when the DeepSpeed JSON enables neither bf16 nor fp16, run forward passes under
    ``torch.autocast(bfloat16)`` with fp32 master weights. Ignored on CPU."""
    compile: CompileMode = "auto"
    """``torch.compile`` the model: ``on``, ``off``, or ``auto`` (on with CUDA, where it fuses the element-wise
    kernels that dominate the step; off on CPU, where compiling costs more than it saves in short runs).
    When compiling is unavailable or fails, training continues eager with a warning that says why."""
    compile_mode: CompileKind = "default"
    """``torch.compile``'s mode when compiling: ``default``; ``max-autotune-no-cudagraphs`` (inductor tries kernel
    variants and fuses element-wise work into matrix products: minutes more compiling, for long runs);
    ``reduce-overhead`` (CUDA graphs, which need the same shapes step after step). Only the default is measured
    on a GPU (docs/gpu.md)."""
    unpad: bool = True
    """Run the encoder on the real tokens only (:mod:`pretrain.unpad`): padding positions cost nothing, the
    loss is the same. ``false``: Hugging Face's padded forward."""
    attention_kernel: AttentionKernel = "flash"
    """The kernel of the unpadded encoder's attention on a CUDA GPU (:func:`pretrain.unpad.select_varlen_kernel`):
    ``flash`` (torch's variable-length FlashAttention-2) or ``cudnn`` (cuDNN's fused attention through the same
    op, a path torch ships turned off; torch 2.11's fails in its backward, which the engine checks when it is built
    and reports). Ignored on CPU and with ``unpad: false``."""
    output_dir: str | None = None
    """Where checkpoints, logs and the final model go (``--output`` overrides)."""

    def __post_init__(self) -> None:
        w = "TrainConfig"
        require(self.batch_size >= 1, w, f"batch_size must be >= 1, got {self.batch_size}")
        if self.micro_batch_size is not None:
            require(
                1 <= self.micro_batch_size <= self.batch_size,
                w,
                f"micro_batch_size must be in [1, batch_size={self.batch_size}], got {self.micro_batch_size}",
            )
            require(
                self.batch_size % self.micro_batch_size == 0,
                w,
                f"micro_batch_size ({self.micro_batch_size}) must divide batch_size ({self.batch_size})",
            )
        require(self.lr > 0, w, f"lr must be > 0, got {self.lr}")
        require(self.total_steps >= 1, w, f"total_steps must be >= 1, got {self.total_steps}")
        require(
            0 <= self.warmup_steps <= self.total_steps,
            w,
            f"warmup_steps must be in [0, total_steps={self.total_steps}], got {self.warmup_steps}",
        )
        if isinstance(self.compile, bool):  # YAML reads a bare on/off as a boolean
            object.__setattr__(self, "compile", "on" if self.compile else "off")
        require(self.compile in COMPILE_MODES, w, f"compile must be one of {COMPILE_MODES}, got {self.compile!r}")
        require(
            self.compile_mode in COMPILE_KINDS,
            w,
            f"compile_mode must be one of {COMPILE_KINDS}, got {self.compile_mode!r}",
        )
        require(isinstance(self.unpad, bool), w, f"unpad must be true or false, got {self.unpad!r}")
        require(
            self.attention_kernel in ATTENTION_KERNELS,
            w,
            f"attention_kernel must be one of {ATTENTION_KERNELS}, got {self.attention_kernel!r}",
        )
        require(self.optimizer in OPTIMIZERS, w, f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        require(self.weight_decay >= 0, w, f"weight_decay must be >= 0, got {self.weight_decay}")
        require(
            len(self.betas) == 2 and all(0 <= b < 1 for b in self.betas),
            w,
            f"betas must be two values in [0, 1), got {self.betas}",
        )
        require(self.eps > 0, w, f"eps must be > 0, got {self.eps}")
        for name in ("checkpoint_every", "keep_last", "log_every"):
            require(getattr(self, name) >= 1, w, f"{name} must be >= 1, got {getattr(self, name)}")
        object.__setattr__(self, "betas", tuple(float(b) for b in self.betas))

    def batch_layout(self, world_size: int) -> tuple[int, int]:
        """``(micro_batch_size, gradient_accumulation_steps)`` per process for ``world_size`` processes."""
        micro = self.micro_batch_size or self.batch_size // world_size
        if micro < 1 or self.batch_size % (micro * world_size) != 0:
            raise ValueError(
                f"TrainConfig: batch_size {self.batch_size} is not a multiple of micro_batch_size {micro} x "
                f"{world_size} processes"
            )
        return micro, self.batch_size // (micro * world_size)

    def deepspeed_config_path(self) -> Path:
        """The DeepSpeed JSON: a bare name (``ds_gpu_bf16.json``) is a shipped config and is looked up in
        ``pretrain/configs/`` only, so a stray file of the same name in the working directory never replaces
        it; anything with a directory part (``./ds.json``, ``conf/ds.json``, an absolute path) is the user's file.
        """
        given = str(self.deepspeed_config)
        if "/" not in given and "\\" not in given:
            path = CONFIG_DIR / given
            if not path.is_file():
                shipped = sorted(p.name for p in CONFIG_DIR.glob("ds_*.json"))
                raise FileNotFoundError(
                    f"DeepSpeed config {given!r} is not a shipped config (shipped: {shipped}); "
                    f"give a path such as ./{given} for your own file"
                )
            return path
        path = Path(given)
        if not path.is_file():
            raise FileNotFoundError(f"DeepSpeed config {given!r} not found")
        return path

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "train config") -> TrainConfig:
        return _from_dict(cls, data, where)

    @classmethod
    def load(cls, path: str | Path) -> TrainConfig:
        """A YAML file holding some of the fields (the rest keep their defaults)."""
        return cls.from_dict(load_mapping(path), where=str(path))

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["betas"] = list(self.betas)
        return data


def _from_dict(cls, data: Mapping[str, Any], where: str):
    return build_config(cls, data, source=where)


def load_mapping(path: str | Path) -> dict[str, Any]:
    """A YAML or JSON file as a dict; errors name the file (:func:`tokstudy.configfile.read_config`)."""
    return read_config(path)
