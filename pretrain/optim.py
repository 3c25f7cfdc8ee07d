"""Which optimizer a run gets, and building it: per-tensor LAMB, torch's AdamW, or the DeepSpeed JSON's own.

:func:`choose_optimizer` is a pure function of the train config, the DeepSpeed JSON and whether CUDA
is present, so every combination is tested on CPU. LAMB needs the parameter tensors themselves; see
:mod:`pretrain.lamb` for where DeepSpeed flattens them.

>>> choose_optimizer(TrainConfig(), {"zero_optimization": {"stage": 0}}, cuda=True)
'lamb'
>>> choose_optimizer(TrainConfig(), {"zero_optimization": {"stage": 1}}, cuda=True)
'adamw'
"""

from __future__ import annotations

from typing import Any

import torch

from pretrain.config import TrainConfig
from pretrain.lamb import Lamb


def param_groups(model: torch.nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    decay, no_decay, seen = [], [], set()
    for name, p in model.named_parameters():
        if not p.requires_grad or id(p) in seen:  # tied weights appear once
            continue
        seen.add(id(p))
        (no_decay if p.ndim < 2 or "LayerNorm" in name or name.endswith("bias") else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def _adamw(groups: list[dict[str, Any]], train: TrainConfig) -> torch.optim.Optimizer:
    """torch's AdamW, its fused kernel where this torch has one for the device (2x faster on CPU than foreach)."""
    try:
        return torch.optim.AdamW(groups, lr=train.lr, betas=train.betas, eps=train.eps, fused=True)
    except (RuntimeError, ValueError):
        return torch.optim.AdamW(groups, lr=train.lr, betas=train.betas, eps=train.eps)


def mixed_precision_in_json(config: dict[str, Any]) -> bool:
    """Whether the DeepSpeed JSON makes DeepSpeed manage bf16 or fp16 itself."""
    return any(bool((config.get(k) or {}).get("enabled")) for k in ("bf16", "bfloat16", "fp16"))


def flattens_parameters(config: dict[str, Any]) -> bool:
    """Whether DeepSpeed would hand the optimizer flattened groups instead of the parameter tensors.

    It does under ZeRO stages 1-3 and whenever it manages bf16/fp16 itself (see :mod:`pretrain.lamb`).
    """
    stage = int((config.get("zero_optimization") or {}).get("stage", 0))
    return stage > 0 or mixed_precision_in_json(config)


def choose_optimizer(train: TrainConfig, config: dict[str, Any], *, cuda: bool, where: str = "DeepSpeed config") -> str:
    """``"lamb"``, ``"adamw"`` or ``"deepspeed-json"`` for this train config, DeepSpeed JSON and device.

    ``auto`` is LAMB on CUDA when the JSON keeps parameters unflattened, AdamW otherwise. LAMB with a
    flattening JSON is an error: its trust ratio would be computed per flattened group, not per tensor.
    """
    if "optimizer" in config:
        kind = str((config["optimizer"] or {}).get("type", "")).lower()
        if "lamb" in kind and flattens_parameters(config):
            raise ValueError(
                f"{where}: optimizer {kind!r} under ZeRO or DeepSpeed bf16/fp16 sees flattened parameter "
                "groups, so its trust ratio is not per tensor; remove 'optimizer' (the trainer then "
                "uses its per-tensor LAMB) and use ZeRO stage 0 without DeepSpeed bf16/fp16"
            )
        return "deepspeed-json"
    choice = train.optimizer
    if choice == "auto":
        choice = "lamb" if cuda and not flattens_parameters(config) else "adamw"
    if choice == "lamb" and flattens_parameters(config):
        raise ValueError(
            f"{where}: optimizer 'lamb' needs the parameter tensors, but this JSON makes DeepSpeed flatten "
            "them (ZeRO stage > 0 or DeepSpeed bf16/fp16); use ZeRO stage 0 with bf16/fp16 disabled "
            "(mixed precision then comes from TrainConfig.autocast_bf16), e.g. ds_gpu_bf16.json, "
            "or optimizer 'adamw'"
        )
    return choice


def build_optimizer(choice: str, groups: list[dict[str, Any]], train: TrainConfig) -> torch.optim.Optimizer | None:
    """The optimizer for ``choice`` (``None`` for ``"deepspeed-json"``: DeepSpeed builds the JSON's own)."""
    if choice == "lamb":
        return Lamb(groups, lr=train.lr, betas=train.betas, eps=train.eps)
    if choice == "adamw":
        return _adamw(groups, train)
    return None
