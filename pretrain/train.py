"""Pre-train an ALBERT model: the whole run, read top to bottom.

1. check that the tokenizer and the example store share one vocabulary;
2. build the model (seeded) and the DeepSpeed engine around it;
3. resume from the newest intact checkpoint when asked (model, optimizer, scheduler, RNGs; the
   data position is the step counter, see :mod:`pretrain.sampler`);
4. loop ``engine.step(micro_batches)``, logging every ``log_every`` steps and checkpointing every
   ``checkpoint_every`` steps; only there does the loop wait for the device (statistics are read and
   the loss is checked to be finite, :meth:`~pretrain.engine.PretrainEngine.check_finite`);
5. write a final checkpoint and a Hugging Face model directory (``<output>/final_model``).

Run it with ``pretrain train`` (one process), ``torchrun --nproc_per_node N -m pretrain train ...``
or the ``deepspeed`` launcher; see docs/pretrain.md.

>>> train(ModelConfig.preset("tiny"), TrainConfig(batch_size=32, total_steps=200),
...       data="runs/store", tokenizer="runs/tok", output="runs/tiny")      # doctest: +SKIP
"""

from __future__ import annotations

import os
import random
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pretrain.checkpoint import CheckpointManager
from pretrain.config import ModelConfig, TrainConfig
from pretrain.cost import COST_FILE, CostMeter, record_segment
from pretrain.data.store import ExampleStore
from pretrain.engine import PretrainEngine, StepStats
from pretrain.logging_ import MetricsLogger
from pretrain.model import AlbertPretrainingModule, build_model
from pretrain.sampler import GlobalBatchOrder
from pretrain.seeding import seed_everything
from pretrain.tokenizer_info import check_same_vocabulary, tokenizer_info


@dataclass(frozen=True)
class TrainResult:
    """What a call to :func:`train` did."""

    output_dir: Path
    step: int
    """Optimiser steps completed (``total_steps`` unless ``stop_at_step`` came first)."""
    resumed_from: int | None
    """The checkpoint step the run resumed from, if any."""
    last_stats: StepStats | None
    final_model_dir: Path | None
    """The Hugging Face directory, written when the run reached ``total_steps``."""
    model: Any = field(default=None, repr=False, compare=False)
    """The trained ``AlbertForPreTraining`` itself (in memory, on the training device)."""


def rng_state() -> dict:
    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
    }


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if state.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def train(
    model_config: ModelConfig,
    train_config: TrainConfig,
    *,
    data: str | os.PathLike,
    tokenizer: str | os.PathLike,
    output: str | os.PathLike | None = None,
    resume: bool = False,
    progress: bool = True,
    stop_at_step: int | None = None,
) -> TrainResult:
    """Pre-train on the example store ``data`` with the tokenizer directory ``tokenizer``.

    ``stop_at_step`` checkpoints and returns at that step, as a job with a time slice would
    (continue with ``resume=True``). Raises :class:`~pretrain.engine.NonFiniteLossError` when the loss
    stops being finite; the checkpoints already written are untouched.
    """
    output = Path(output or train_config.output_dir or "runs/pretrain")
    store, tok = _open_store(data, tokenizer, model_config)
    model = build_model(
        model_config, vocab_size=tok["vocab_size"], special_ids=tok["special_ids"], seed=train_config.seed
    )
    engine = PretrainEngine(AlbertPretrainingModule(model), train_config)
    seed_everything(train_config.seed + engine.rank)
    checkpoints = CheckpointManager(
        output / "checkpoints", keep_last=train_config.keep_last, rank=engine.rank, barrier=engine.barrier
    )

    if not resume and checkpoints.step_dirs():
        raise FileExistsError(
            f"{output} already holds checkpoints: pass --resume to continue, or choose a new --output"
        )
    resumed_from = _resume(checkpoints, engine, model_config, train_config, tok) if resume else None
    start = resumed_from or 0

    order = GlobalBatchOrder(len(store), train_config.batch_size, train_config.seed)
    log = MetricsLogger(output, resume_step=start, enabled=engine.rank == 0)
    state = _checkpoint_state(model_config, train_config, tok, data, len(store), engine)

    end = train_config.total_steps if stop_at_step is None else min(stop_at_step, train_config.total_steps)
    stats, step, tokens, t_log, t0 = None, start, 0, time.perf_counter(), time.perf_counter()
    bar = _progress(train_config.total_steps, start, enabled=progress and engine.rank == 0)
    meter = CostMeter(track_energy=engine.rank == 0)  # wall time, kWh, CO2e -> <output>/cost.json
    try:
        for step in range(start + 1, end + 1):
            indices = order.micro_batches(
                step - 1, rank=engine.rank, world_size=engine.world_size, micro_batch_size=engine.micro_batch_size
            )
            stats = engine.step([store.get_batch(i) for i in indices], step=step - 1)
            tokens += stats.tokens
            bar.update(1)
            logging_now = step % train_config.log_every == 0 or step == train_config.total_steps
            saving_now = step % train_config.checkpoint_every == 0 or step == end
            if logging_now or saving_now:  # the only host synchronisations of the loop
                engine.check_finite()
            if logging_now:
                now = time.perf_counter()
                log.write(step, _logged_values(stats, tokens_per_s=tokens / max(now - t_log, 1e-9), elapsed_s=now - t0))
                bar.set_postfix(loss=f"{stats.loss:.3f}", mlm_acc=f"{stats.mlm_accuracy:.3f}", lr=f"{stats.lr:.2e}")
                tokens, t_log = 0, now
            if saving_now:
                _save_checkpoint(checkpoints, engine, step, {**state, "epoch": order.epoch_of(step)})
    finally:
        bar.close()
        log.close()
        if engine.rank == 0:
            record_segment(output / COST_FILE, meter.stop(), resumed=resumed_from is not None)
    final_dir = None
    if step >= train_config.total_steps:
        final_dir = output / "final_model"
        engine.save_final_model(final_dir, tokenizer_dir=tokenizer)
    return TrainResult(
        output_dir=output,
        step=step,
        resumed_from=resumed_from,
        last_stats=stats,
        final_model_dir=final_dir,
        model=engine.module.model,
    )


def _open_store(data: str | os.PathLike, tokenizer: str | os.PathLike, model_config: ModelConfig):
    """The example store and the tokenizer's facts, checked against each other and against the model."""
    store = ExampleStore(data)
    tok = tokenizer_info(tokenizer)
    check_same_vocabulary(
        tok,
        {"vocab_size": store.vocab_size, "special_ids": store.special_ids},
        a_name=f"tokenizer {tokenizer}",
        b_name=f"example store {data}",
    )
    if store.max_seq_length > model_config.max_position_embeddings:
        raise ValueError(
            f"example store {data} has sequences of {store.max_seq_length} tokens, more than the "
            f"model's max_position_embeddings ({model_config.max_position_embeddings})"
        )
    return store, tok


def _resume(
    checkpoints: CheckpointManager, engine: PretrainEngine, model_config: ModelConfig, train_config: TrainConfig, tok
) -> int | None:
    """Load the latest valid checkpoint into ``engine`` with this rank's RNG state; returns its step, or None
    when there is none (a fresh start)."""
    found = checkpoints.latest_valid()
    if found is None:
        return None
    path, state = found
    _check_resumable(state, model_config, train_config, tok, path)
    engine.load_checkpoint(path)
    step = int(state["step"])
    rng_file = path / "rng" / f"rank_{engine.rank}.pt"
    if rng_file.is_file():
        set_rng_state(torch.load(rng_file, weights_only=False))
    else:  # more processes than the checkpointed run had
        warnings.warn(
            f"{path}: no RNG state for rank {engine.rank}; seeding it from seed, rank and step",
            RuntimeWarning,
            stacklevel=3,
        )
        seed_everything(train_config.seed + engine.rank + 1_000_003 * step)
    return step


def _checkpoint_state(
    model_config: ModelConfig, train_config: TrainConfig, tok: dict, data, num_examples: int, engine: PretrainEngine
) -> dict:
    """What every checkpoint of the run records besides its step and epoch (read back by :func:`_check_resumable`)."""
    return {
        "model_config": model_config.to_dict(),
        "train_config": train_config.to_dict(),
        "tokenizer": tok,
        "data": {"path": str(Path(data).resolve()), "num_examples": num_examples},
        "world_size": engine.world_size,
        "zero_stage": engine.engine.zero_optimization_stage(),
        "optimizer": engine.optimizer_name,
    }


def _save_checkpoint(checkpoints: CheckpointManager, engine: PretrainEngine, step: int, state: dict) -> None:
    """The engine's checkpoint and this rank's RNG state, as checkpoint ``step`` with ``state``."""

    def write(tmp: Path) -> None:
        engine.save_checkpoint(tmp, tag="ds")
        (tmp / "rng").mkdir(exist_ok=True)
        torch.save(rng_state(), tmp / "rng" / f"rank_{engine.rank}.pt")

    checkpoints.save(step, write=write, state=state)


def _logged_values(stats, *, tokens_per_s: float, elapsed_s: float) -> dict:
    """One line of the metrics log: the step's losses, accuracies and learning rate, throughput, memory."""
    values = {k: getattr(stats, k) for k in ("loss", "mlm_loss", "mlm_accuracy", "sop_loss", "sop_accuracy", "lr")}
    values["tokens_per_s"], values["elapsed_s"] = tokens_per_s, elapsed_s
    if torch.cuda.is_available():  # the allocator's own count: no device synchronisation
        values["max_memory_gib"] = torch.cuda.max_memory_allocated() / 2**30
    return values


def _check_resumable(state: dict, model_config: ModelConfig, train_config: TrainConfig, tok: dict, path: Path) -> None:
    """A checkpoint continues this run only with the same model, vocabulary and global batch."""
    if state["model_config"] != model_config.to_dict():
        raise ValueError(
            f"{path}: the checkpoint's model config {state['model_config']} differs from {model_config.to_dict()}"
        )
    check_same_vocabulary(state["tokenizer"], tok, a_name=f"checkpoint {path}", b_name=f"tokenizer {tok['path']}")
    if (
        state["train_config"]["batch_size"] != train_config.batch_size
        or state["train_config"]["seed"] != train_config.seed
    ):
        raise ValueError(
            f"{path}: resuming needs the same batch_size and seed (the data position depends on them); "
            f"checkpoint has {state['train_config']['batch_size']} / {state['train_config']['seed']}"
        )


def _progress(total: int, initial: int, *, enabled: bool):
    # deferred: tqdm.auto (~50 ms, asyncio), only when a bar is shown
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, disable=not enabled, desc="pretrain", unit="step", dynamic_ncols=True)
