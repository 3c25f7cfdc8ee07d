"""The DeepSpeed backend: one object with ``step``, ``save_checkpoint``, ``load_checkpoint``, ``save_final_model``.

DeepSpeed is imported here and only here, when an engine is built. What the engine prepares before it, each
in its own module: the DeepSpeed JSON with the batch sizes of :class:`~pretrain.config.TrainConfig` filled in
and the gradient clipping taken over where DeepSpeed would clip the parameter tensors
(:mod:`pretrain.ds_config`); the launcher's variables for a process started as a plain command
(:mod:`pretrain.distributed_env`); ``torch.compile`` in place, with the sizes that vary marked dynamic
(:mod:`pretrain.compiling`). When the JSON names no optimizer, one is picked
(:func:`pretrain.optim.choose_optimizer`): the per-tensor :class:`pretrain.lamb.Lamb` on CUDA (ALBERT's
optimizer), torch's AdamW on CPU. The learning-rate schedule is always
:func:`pretrain.schedule.warmup_linear_decay`, stepped by DeepSpeed at each update.

No host synchronisation inside a step: the masked-token and sequence counts (and, with
``TrainConfig.unpad``, the indices of the real tokens, :mod:`pretrain.unpad`) are taken on the host
before the batch is copied, the model gathers masked rows with fixed-size indices, and the step's
statistics stay on the device until read (:class:`StepStats` resolves them on first access). A
non-finite loss is remembered on the device and reported by :meth:`PretrainEngine.check_finite`,
which the training loop calls at every logging and checkpoint step, before anything is written.
A micro-batch without padding reaches the module without an attention mask (SDPA then takes its
FlashAttention kernel). If compiling fails at the first step, training goes on eager with a warning.

Loss normalisation: every micro-batch's loss is ``sum / (global count / (world * accumulation))``,
where the global counts (masked tokens, sequences) are summed over all micro-batches of the step
and all processes. DeepSpeed divides by the accumulation steps and averages over processes, so
the gradient is that of one mean over the whole global batch, whatever its split: 1 process and
2 processes with the same global batch take the same step.

>>> engine = PretrainEngine(module, train_config)          # doctest: +SKIP
>>> stats = engine.step([batch])                           # doctest: +SKIP
"""

from __future__ import annotations

import logging
import math
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

from pretrain.compiling import compile_module, compile_wanted, mark_dynamic, uncompile_module
from pretrain.config import TrainConfig
from pretrain.distributed_env import ensure_distributed_env, skip_shm_inference_op
from pretrain.ds_config import build_ds_config, take_gradient_clipping
from pretrain.export import save_hf_model
from pretrain.optim import build_optimizer, choose_optimizer, mixed_precision_in_json, param_groups
from pretrain.schedule import build_lr_scheduler
from pretrain.unpad import check_varlen_kernel, has_padding, select_varlen_kernel, unpad_layout, varlen_supported


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or infinite; the run stops before the bad update is applied."""


class StepStats:
    """What one optimiser step measured, summed over micro-batches and processes.

    ``tokens``, ``masked_tokens``, ``sequences`` and ``lr`` are host numbers; the losses and accuracies
    live on the device until one of them is read (one synchronisation then, none per step otherwise).
    """

    _DEVICE_FIELDS = ("loss", "mlm_loss", "mlm_accuracy", "sop_loss", "sop_accuracy")

    def __init__(self, totals, *, tokens: int, masked_tokens: int, sequences: int, lr: float):
        self._totals = totals  # [mlm_loss_sum, mlm_correct, sop_loss_sum, sop_correct], float64
        self._values: dict[str, float] | None = None
        self.tokens, self.masked_tokens, self.sequences, self.lr = tokens, masked_tokens, sequences, lr

    def _resolve(self) -> dict[str, float]:
        if self._values is None:
            mlm_sum, mlm_correct, sop_sum, sop_correct = (float(x) for x in self._totals.tolist())
            n_mlm, n_sop = max(self.masked_tokens, 1), max(self.sequences, 1)
            self._values = {
                "loss": mlm_sum / n_mlm + sop_sum / n_sop,
                "mlm_loss": mlm_sum / n_mlm,
                "mlm_accuracy": mlm_correct / n_mlm,
                "sop_loss": sop_sum / n_sop,
                "sop_accuracy": sop_correct / n_sop,
            }
        return self._values

    def __getattr__(self, name: str) -> float:
        if name in StepStats._DEVICE_FIELDS:
            return self._resolve()[name]
        raise AttributeError(name)

    def __repr__(self) -> str:
        return (
            f"StepStats(loss={self.loss:.4f}, mlm_accuracy={self.mlm_accuracy:.3f}, tokens={self.tokens}, "
            f"masked_tokens={self.masked_tokens}, sequences={self.sequences}, lr={self.lr:.3g})"
        )


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
        # deferred: deepspeed (~2 s), only when an engine is built or a ZeRO checkpoint read
        import deepspeed

        skip_shm_inference_op()
        # deferred: deepspeed (~2 s), only when an engine is built or a ZeRO checkpoint read
        from deepspeed.utils import logger as ds_logger

        ds_logger.setLevel(logging.WARNING)
        self.world_size = int(os.environ["WORLD_SIZE"])
        self.rank = int(os.environ["RANK"])
        config = build_ds_config(
            train, world_size=self.world_size, path=Path(ds_config_path) if ds_config_path else None
        )
        self.clip_norm = take_gradient_clipping(config)
        self.ds_config = config
        self.micro_batch_size = config["train_micro_batch_size_per_gpu"]
        self.accumulation = config["gradient_accumulation_steps"]
        groups = param_groups(module, train.weight_decay)
        cuda = torch.cuda.is_available()
        where = str(ds_config_path or train.deepspeed_config_path())
        self.optimizer_name = choose_optimizer(train, config, cuda=cuda, where=where)
        optimizer = build_optimizer(self.optimizer_name, groups, train)
        if cuda:
            module.to(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}")
            if train.autocast_bf16 and not mixed_precision_in_json(config) and hasattr(module, "autocast_dtype"):
                module.autocast_dtype = torch.bfloat16
            if train.unpad and hasattr(module, "varlen_attention"):
                module.varlen_attention = varlen_supported(next(module.parameters()).device)
                if module.varlen_attention and train.attention_kernel != "flash":
                    check_varlen_kernel(train.attention_kernel, next(module.parameters()).device)
                elif module.varlen_attention:
                    select_varlen_kernel("flash")
        self.unpad = train.unpad
        self.compiled = compile_wanted(train, cuda=cuda) and compile_module(module, train.compile_mode)
        self._params = [p for p in module.parameters() if p.requires_grad]
        self._compile_checked = not self.compiled

        def scheduler(opt):
            return build_lr_scheduler(opt, warmup_steps=train.warmup_steps, total_steps=train.total_steps)

        self.engine, self.optimizer, _, self.lr_scheduler = deepspeed.initialize(
            model=module,
            model_parameters=groups if optimizer is None else None,
            optimizer=optimizer,
            lr_scheduler=scheduler,
            config=config,
        )
        if self.world_size == 1 and self.engine.zero_optimization_stage() == 0:
            # DeepSpeed would still flatten, "all-reduce" over one process and copy back every gradient
            # (with ZeRO >= 1 that path also hands the gradients to the optimizer, so it stays).
            self.engine.enable_backward_allreduce = False
        self.device = self.engine.device
        self.module = self.engine.module
        self._first_bad: torch.Tensor | None = None

    # -- collectives ----------------------------------------------------------------------------
    def all_reduce(self, values: torch.Tensor, op: str = "sum") -> torch.Tensor:
        if self.world_size > 1:
            dist.all_reduce(values, op=dist.ReduceOp.MAX if op == "max" else dist.ReduceOp.SUM)
        return values

    def barrier(self) -> None:
        if self.world_size > 1:
            dist.barrier()

    # -- training -------------------------------------------------------------------------------
    def _to_device(self, batch: dict[str, Any]) -> dict[str, torch.Tensor]:
        """Copy a batch to the device without waiting for it: from pageable memory CUDA would first wait
        for the stream (the previous step) to finish, so on CUDA the host side is pinned first."""
        pin = torch.device(self.device).type == "cuda"
        out = {}
        for k, v in batch.items():
            if v is None:
                out[k] = None
                continue
            t = torch.from_numpy(v) if isinstance(v, np.ndarray) else v
            out[k] = (t.pin_memory() if pin else t).to(self.device, non_blocking=True)
        return out

    def step(self, micro_batches: Sequence[dict[str, Any]], *, step: int | None = None) -> StepStats:
        """One optimiser step over this process's micro-batches (``accumulation`` of them).

        A non-finite loss is recorded (with its step) on the device and raised by :meth:`check_finite`.
        """
        if len(micro_batches) != self.accumulation:
            raise ValueError(f"step needs {self.accumulation} micro-batches per process, got {len(micro_batches)}")
        # Counted on the host before the copy, so no device synchronisation is needed for them.
        counts = [
            float(sum(int((np.asarray(b["mlm_positions"]) >= 0).sum()) for b in micro_batches)),
            float(sum(len(b["input_ids"]) for b in micro_batches)),
            float(sum(int(np.asarray(b["attention_mask"]).sum()) for b in micro_batches)),
        ]
        micro_batches = [self._layout(b) for b in micro_batches]
        batches = [self._to_device(b) for b in micro_batches]
        if self.compiled:
            for b in batches:
                mark_dynamic(b)
        if self.world_size > 1:  # the one collective before the forward pass
            counts = self.all_reduce(torch.tensor(counts, dtype=torch.float64, device=self.device)).tolist()
        share = self.world_size * self.accumulation
        # Tensors, not floats, so a compiled forward never specialises on them; copied like a batch (pinned).
        dens = self._to_device({"d": np.array([max(counts[0], 1.0) / share, max(counts[1], 1.0) / share], np.float32)})[
            "d"
        ]
        mlm_den, sop_den = dens[0], dens[1]
        totals = torch.zeros(4, dtype=torch.float64, device=self.device)
        lr = self.current_lr()
        self.engine.train()
        for i, batch in enumerate(batches):
            out = self._forward_backward(batch, mlm_den, sop_den)
            if step is not None:
                self._note_finite(out["loss"], step + 1)
            if self.clip_norm is not None and i == len(batches) - 1:  # gradients complete (and all-reduced)
                torch.nn.utils.clip_grad_norm_(self._params, self.clip_norm, foreach=True)
            self.engine.step()
            totals += torch.stack(
                [out["mlm_loss_sum"], out["mlm_correct"], out["sop_loss_sum"], out["sop_correct"]]
            ).double()
        totals = self.all_reduce(totals)
        return StepStats(totals, tokens=int(counts[2]), masked_tokens=int(counts[0]), sequences=int(counts[1]), lr=lr)

    def _layout(self, batch: dict[str, Any]) -> dict[str, Any]:
        """What the module gets for one micro-batch, decided on the host from its attention mask.

        Without padding the mask is ``None`` (which lets SDPA take its FlashAttention kernel, and spares
        Hugging Face's all-ones check, a host synchronisation in eager mode); with padding and
        ``unpad``, the unpadded layout (:func:`pretrain.unpad.unpad_layout`) is added.
        """
        if not has_padding(batch["attention_mask"]):
            return {**batch, "attention_mask": None}
        if self.unpad:
            return {**batch, **unpad_layout(batch["attention_mask"])}
        return batch

    def _forward_backward(self, batch: dict[str, torch.Tensor], mlm_den, sop_den) -> dict[str, torch.Tensor]:
        if self._compile_checked:
            out = self.engine(**batch, mlm_denominator=mlm_den, sop_denominator=sop_den)
            self.engine.backward(out["loss"])
            return out
        try:  # the first compiled step: compiling happens here, forward and backward
            out = self.engine(**batch, mlm_denominator=mlm_den, sop_denominator=sop_den)
            self.engine.backward(out["loss"])
        except Exception as exc:  # noqa: BLE001 - dynamo/inductor raise many types; all mean "run eager"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            warnings.warn(
                f"TrainConfig.compile: torch.compile failed at the first step ({type(exc).__name__}: "
                f"{first[:300]}); continuing eager. Set compile: off to skip the attempt.",
                RuntimeWarning,
                stacklevel=3,
            )
            uncompile_module(self.module)
            self.compiled = False
            for p in self.module.parameters():
                p.grad = None
            out = self.engine(**batch, mlm_denominator=mlm_den, sop_denominator=sop_den)
            self.engine.backward(out["loss"])
        self._compile_checked = True
        return out

    def _note_finite(self, loss: torch.Tensor, step: int) -> None:
        """Remember the first step whose loss was not finite, on the device (no synchronisation)."""
        bad = ~torch.isfinite(loss.detach())
        if self._first_bad is None:
            self._first_bad = torch.zeros((), dtype=torch.float64, device=self.device)
        self._first_bad = torch.where(
            bad & (self._first_bad == 0), torch.full_like(self._first_bad, step), self._first_bad
        )

    def check_finite(self) -> None:
        """Raise :class:`NonFiniteLossError` (on every process) if a loss since the start was not finite.

        Costs one synchronisation; the training loop calls it before logging and before each checkpoint,
        so a checkpoint never holds weights updated from a non-finite loss.
        """
        if self._first_bad is None:
            return
        # Earliest bad step over processes: max of (big - step) where bad, 0 where not.
        big = 2.0**52
        code = torch.where(self._first_bad > 0, big - self._first_bad, torch.zeros_like(self._first_bad)).reshape(1)
        code = float(self.all_reduce(code, op="max").item())
        if code > 0:
            raise NonFiniteLossError(
                f"the loss was not finite at step {int(big - code)}; stopping before the next checkpoint. The last "
                "checkpoint is intact: lower the learning rate, check the data, or use bf16 instead of fp16, "
                "then resume with --resume"
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
            str(directory), tag=tag, load_optimizer_states=True, load_lr_scheduler_states=True
        )
        if path is None:
            raise FileNotFoundError(f"{directory}/{tag}: DeepSpeed found no checkpoint to load")
        return client_state or {}

    def full_state_dict(self) -> dict[str, torch.Tensor]:
        """The Hugging Face model's weights in float32 on CPU (gathered under ZeRO-3)."""
        if self.engine.zero_optimization_stage() == 3:
            state = self.engine._zero3_consolidated_16bit_state_dict()
            prefix = "model."
            state = {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)} if state else {}
        else:
            state = self.module.model.state_dict()
        return {k: v.detach().float().cpu() for k, v in state.items()}

    def save_final_model(self, directory: str | Path, *, tokenizer_dir: str | Path | None = None) -> Path | None:
        """A Hugging Face directory of the current weights (rank 0 writes; see :mod:`pretrain.export`)."""
        state = self.full_state_dict()
        out = None
        if self.rank == 0:
            out = save_hf_model(self.module.model.config, state, directory, tokenizer_dir=tokenizer_dir)
        self.barrier()
        return out
