"""The DeepSpeed backend: one object with ``step``, ``save_checkpoint``, ``load_checkpoint``, ``save_final_model``.

DeepSpeed is imported here and only here, when an engine is built. The DeepSpeed JSON is used as
the user wrote it (ZeRO stage, bf16/fp16, gradient clipping, even an optimizer); this module only
fills in the batch sizes from :class:`~pretrain.config.TrainConfig` and, when the JSON names no
optimizer, picks one: DeepSpeed's FusedLamb on CUDA (ALBERT's optimizer), torch's AdamW where
DeepSpeed offers no LAMB (the CPU). The learning-rate schedule is always
:func:`pretrain.schedule.warmup_linear_decay`, stepped by DeepSpeed at each update.

Loss normalisation: every micro-batch's loss is ``sum / (global count / (world * accumulation))``,
where the global counts (masked tokens, sequences) are summed over all micro-batches of the step
and all processes. DeepSpeed divides by the accumulation steps and averages over processes, so
the gradient is that of one mean over the whole global batch, whatever its split: 1 process and
2 processes with the same global batch take the same step.

A single process without a launcher gets ``RANK=0``, ``WORLD_SIZE=1`` and a free local port, so
``pretrain train`` runs as a plain command; torchrun and the ``deepspeed`` launcher set these.

>>> engine = PretrainEngine(module, train_config)          # doctest: +SKIP
>>> stats = engine.step([batch])                           # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import math
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from pretrain.config import TrainConfig
from pretrain.schedule import build_lr_scheduler

_BATCH_KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or infinite; the run stops before the bad update is applied."""


@dataclass(frozen=True)
class StepStats:
    """What one optimiser step measured, summed over micro-batches and processes."""

    loss: float
    mlm_loss: float
    mlm_accuracy: float
    sop_loss: float
    sop_accuracy: float
    tokens: int
    masked_tokens: int
    sequences: int
    lr: float


def ensure_distributed_env() -> None:
    """Defaults for a single process started without a launcher (gloo/NCCL need them)."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        os.environ.setdefault("LOCAL_RANK", "0")
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        return
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(s.getsockname()[1])


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
        raise ValueError(f"{path}: remove 'scheduler': the schedule comes from the train config (warmup_steps, total_steps)")
    config.setdefault("steps_per_print", 10**9)
    return config


def _param_groups(model: torch.nn.Module, weight_decay: float) -> list[dict[str, Any]]:
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


def fused_lamb_available() -> bool:
    """Whether DeepSpeed can build its FusedLamb here (a CUDA device and a compatible op builder)."""
    if not torch.cuda.is_available():
        return False
    try:
        from deepspeed.accelerator import get_accelerator

        builder = get_accelerator().create_op_builder("FusedLambBuilder")
        return builder is not None and builder.is_compatible(verbose=False)
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return False


class PretrainEngine:
    """A DeepSpeed engine around an :class:`~pretrain.model.AlbertPretrainingModule`.

    Attributes:
        rank, world_size: this process in the data-parallel group.
        micro_batch_size, accumulation: the per-process batch layout.
        device: where batches go.
        optimizer_name: ``"lamb"`` or ``"adamw"`` or ``"deepspeed-json"``.
    """

    def __init__(self, module: torch.nn.Module, train: TrainConfig, *, ds_config_path: str | Path | None = None):
        ensure_distributed_env()
        import deepspeed
        from deepspeed.utils import logger as ds_logger

        ds_logger.setLevel(logging.WARNING)
        self.world_size = int(os.environ["WORLD_SIZE"])
        self.rank = int(os.environ["RANK"])
        config = build_ds_config(train, world_size=self.world_size,
                                 path=Path(ds_config_path) if ds_config_path else None)
        self.ds_config = config
        self.micro_batch_size = config["train_micro_batch_size_per_gpu"]
        self.accumulation = config["gradient_accumulation_steps"]
        groups = _param_groups(module, train.weight_decay)
        optimizer = None
        if "optimizer" in config:
            self.optimizer_name = "deepspeed-json"
        elif train.optimizer == "lamb" or (train.optimizer == "auto" and fused_lamb_available()):
            if not torch.cuda.is_available():
                raise ValueError("optimizer 'lamb' needs CUDA (DeepSpeed's FusedLamb); use 'adamw' or 'auto' on CPU")
            config["optimizer"] = {"type": "Lamb", "params": {
                "lr": train.lr, "betas": list(train.betas), "eps": train.eps, "weight_decay": train.weight_decay}}
            self.optimizer_name = "lamb"
        else:
            optimizer = _adamw(groups, train)
            self.optimizer_name = "adamw"
        if torch.cuda.is_available():
            module.to(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}")
            precise = config.get("bf16", {}).get("enabled") or config.get("fp16", {}).get("enabled")
            if train.autocast_bf16 and not precise and hasattr(module, "autocast_dtype"):
                module.autocast_dtype = torch.bfloat16
        scheduler = lambda opt: build_lr_scheduler(opt, warmup_steps=train.warmup_steps, total_steps=train.total_steps)  # noqa: E731
        self.engine, self.optimizer, _, self.lr_scheduler = deepspeed.initialize(
            model=module, model_parameters=groups if optimizer is None else None, optimizer=optimizer,
            lr_scheduler=scheduler, config=config,
        )
        if self.world_size == 1 and self.engine.zero_optimization_stage() == 0:
            # DeepSpeed would still flatten, "all-reduce" over one process and copy back every gradient
            # (with ZeRO >= 1 that path also hands the gradients to the optimizer, so it stays).
            self.engine.enable_backward_allreduce = False
        self.device = self.engine.device
        self.module = self.engine.module

    # -- collectives ----------------------------------------------------------------------------
    def all_reduce(self, values: torch.Tensor, op: str = "sum") -> torch.Tensor:
        if self.world_size > 1:
            import torch.distributed as dist

            dist.all_reduce(values, op=dist.ReduceOp.MAX if op == "max" else dist.ReduceOp.SUM)
        return values

    def barrier(self) -> None:
        if self.world_size > 1:
            import torch.distributed as dist

            dist.barrier()

    # -- training -------------------------------------------------------------------------------
    def _to_device(self, batch: dict[str, Any]) -> dict[str, torch.Tensor]:
        return {k: (torch.from_numpy(v) if isinstance(v, np.ndarray) else v).to(self.device, non_blocking=True)
                for k, v in batch.items()}

    def step(self, micro_batches: Sequence[dict[str, Any]], *, step: int | None = None) -> StepStats:
        """One optimiser step over this process's micro-batches (``accumulation`` of them).

        Raises :class:`NonFiniteLossError` (on every process) before a non-finite loss is back-propagated.
        """
        if len(micro_batches) != self.accumulation:
            raise ValueError(f"step needs {self.accumulation} micro-batches per process, got {len(micro_batches)}")
        # Counted on the host before the copy, so no device synchronisation is needed for them.
        counts = torch.tensor(
            [float(sum(int((np.asarray(b["mlm_positions"]) >= 0).sum()) for b in micro_batches)),
             float(sum(len(b["input_ids"]) for b in micro_batches)),
             float(sum(int(np.asarray(b["attention_mask"]).sum()) for b in micro_batches))],
            dtype=torch.float64, device=self.device)
        batches = [self._to_device(b) for b in micro_batches]
        counts = self.all_reduce(counts)
        share = self.world_size * self.accumulation
        mlm_den = max(float(counts[0]), 1.0) / share
        sop_den = max(float(counts[1]), 1.0) / share
        totals = torch.zeros(4, dtype=torch.float64, device=self.device)
        lr = self.current_lr()
        self.engine.train()
        for batch in batches:
            out = self.engine(**batch, mlm_denominator=mlm_den, sop_denominator=sop_den)
            bad = torch.tensor([0.0 if torch.isfinite(out["loss"]).item() else 1.0], device=self.device)
            if self.all_reduce(bad, op="max").item() > 0:
                where = "" if step is None else f" at step {step + 1}"
                raise NonFiniteLossError(
                    f"loss is {out['loss'].item()} (not finite){where}; stopping before the update. The last "
                    "checkpoint is intact: lower the learning rate, check the data, or use bf16 instead of fp16, "
                    "then resume with --resume"
                )
            self.engine.backward(out["loss"])
            self.engine.step()
            totals += torch.stack([out["mlm_loss_sum"], out["mlm_correct"], out["sop_loss_sum"], out["sop_correct"]]).double()
        totals = self.all_reduce(totals)
        n_mlm, n_sop = max(float(counts[0]), 1.0), max(float(counts[1]), 1.0)
        return StepStats(
            loss=float(totals[0] / n_mlm + totals[2] / n_sop),
            mlm_loss=float(totals[0] / n_mlm), mlm_accuracy=float(totals[1] / n_mlm),
            sop_loss=float(totals[2] / n_sop), sop_accuracy=float(totals[3] / n_sop),
            tokens=int(counts[2]), masked_tokens=int(counts[0]), sequences=int(counts[1]), lr=lr,
        )

    def current_lr(self) -> float:
        return float(self.lr_scheduler.get_last_lr()[0]) if self.lr_scheduler is not None else math.nan

    # -- persistence ----------------------------------------------------------------------------
    def save_checkpoint(self, directory: str | Path, *, tag: str = "ds", client_state: dict | None = None) -> None:
        """DeepSpeed's checkpoint (model, optimizer, scheduler) into ``directory/tag``; every rank calls it."""
        self.engine.save_checkpoint(str(directory), tag=tag, client_state=client_state or {}, save_latest=False)

    def load_checkpoint(self, directory: str | Path, *, tag: str = "ds") -> dict:
        """Restore model, optimizer and scheduler from ``directory/tag``; returns DeepSpeed's client state."""
        path, client_state = self.engine.load_checkpoint(
            str(directory), tag=tag, load_optimizer_states=True, load_lr_scheduler_states=True)
        if path is None:
            raise FileNotFoundError(f"{directory}/{tag}: DeepSpeed found no checkpoint to load")
        return client_state or {}

    def full_state_dict(self) -> dict[str, torch.Tensor]:
        """The Hugging Face model's weights in float32 on CPU (gathered under ZeRO-3)."""
        if self.engine.zero_optimization_stage() == 3:
            state = self.engine._zero3_consolidated_16bit_state_dict()
            prefix = "model."
            state = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)} if state else {}
        else:
            state = self.module.model.state_dict()
        return {k: v.detach().float().cpu() for k, v in state.items()}

    def save_final_model(self, directory: str | Path, *, tokenizer_dir: str | Path | None = None) -> Path | None:
        """A Hugging Face directory of the current weights (rank 0 writes; see :mod:`pretrain.export`)."""
        from pretrain.export import save_hf_model

        state = self.full_state_dict()
        out = None
        if self.rank == 0:
            out = save_hf_model(self.module.model.config, state, directory, tokenizer_dir=tokenizer_dir)
        self.barrier()
        return out
