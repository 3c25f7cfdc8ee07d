"""The DeepSpeed JSON as the engine hands it to DeepSpeed: the user's file, with what the train config decides.

The JSON is used as the user wrote it (ZeRO stage, bf16/fp16, gradient clipping, even an optimizer);
:func:`build_ds_config` only fills in the batch sizes from :class:`~pretrain.config.TrainConfig` (conflicting
values are an error, so is a ``scheduler``: the schedule comes from the train config) and turns DeepSpeed's
throughput timer off unless the JSON turns it on (it synchronises twice a step).
:func:`take_gradient_clipping` moves the clipping to the engine where DeepSpeed would clip the parameter tensors.

>>> from pretrain.config import TrainConfig
>>> config = build_ds_config(TrainConfig(batch_size=8, micro_batch_size=2), world_size=2)
>>> config["train_micro_batch_size_per_gpu"], config["gradient_accumulation_steps"]
(2, 2)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pretrain.config import TrainConfig
from pretrain.optim import flattens_parameters

_BATCH_KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


def build_ds_config(train: TrainConfig, *, world_size: int, path: Path | None = None) -> dict[str, Any]:
    """The DeepSpeed JSON with the batch sizes filled in; conflicting sizes in the file are an error."""
    path = path or train.deepspeed_config_path()
    try:
        config = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc}") from exc
    micro, accumulation = train.batch_layout(world_size)
    wanted = dict(zip(_BATCH_KEYS, (train.batch_size, micro, accumulation)))
    for key, value in wanted.items():
        if key in config and config[key] not in ("auto", value):
            raise ValueError(
                f"{path}: {key} = {config[key]} disagrees with the train config ({value} for batch_size "
                f"{train.batch_size} on {world_size} process(es)); remove it from the DeepSpeed JSON"
            )
        config[key] = value
    if "scheduler" in config:
        raise ValueError(
            f"{path}: remove 'scheduler': the schedule comes from the train config (warmup_steps, total_steps)"
        )
    config.setdefault("steps_per_print", 10**9)
    # DeepSpeed's throughput timer calls torch.cuda.synchronize() twice a step; our loop measures itself.
    timers = config.setdefault("timers", {})
    timers.setdefault("throughput", {}).setdefault("enabled", False)
    return config


def take_gradient_clipping(config: dict[str, Any]) -> float | None:
    """Set ``gradient_clipping`` to 0 in ``config`` when the engine clips itself, and return the JSON's value.

    Where DeepSpeed hands the optimizer the parameter tensors (ZeRO 0, no DeepSpeed bf16/fp16), its
    clipping builds a host tensor and copies it to the device every step, which waits for the device;
    the engine then clips with ``torch.nn.utils.clip_grad_norm_(..., foreach=True)`` instead (the same
    rule: scale by ``max_norm / (norm + 1e-6)`` when that is below 1), with no synchronisation. Under
    ZeRO or DeepSpeed's own mixed precision the gradients live in DeepSpeed's flat buffers, so
    DeepSpeed keeps clipping (``None`` is returned and the JSON is left as it is). The key is set to 0,
    not removed: DeepSpeed 0.19's default is 1.0 (seen on an H200, where its clipping still ran).
    """
    clip = config.get("gradient_clipping", 1.0)
    if not clip or flattens_parameters(config):
        return None
    config["gradient_clipping"] = 0.0
    return float(clip)
