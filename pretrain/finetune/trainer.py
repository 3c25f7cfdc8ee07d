"""A small training loop: AdamW, linear warm-up/decay, early stopping on dev, seeded.

Why not ``transformers.Trainer``: it requires ``accelerate`` (not a dependency here),
and its evaluation works on pieces, while our dev score must be computed per *word*
after merging windows (and early stopping needs that score). The loop below is ~100
lines, runs unchanged on CPU and CUDA, and keeps the best dev state in memory.

Batches use dynamic padding (each batch is padded to its longest input); with
``group_by_length`` inputs of similar length share a batch (shuffled mega-batches of
50 batches, sorted inside), which cuts padding without fixing the batch order.

>>> result = train(model, windows, evaluate=dev_f1, config=cfg, seed=1)  # doctest: +SKIP
>>> result.best_score, result.best_step
(0.87, 420)
"""

from __future__ import annotations

import copy
import math
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from pretrain.finetune.features import IGNORE
from pretrain.seeding import seed_everything  # noqa: F401  (also imported from here by run.py)


@dataclass(frozen=True)
class TrainResult:
    """What training did: best dev score and when, the history of dev scores, time spent."""

    best_score: float
    best_step: int
    steps: int
    epochs_run: float
    stopped_early: bool
    history: list = field(default_factory=list)
    seconds: float = 0.0
    train_items: int = 0


def resolve_device(name: str):
    """``auto`` -> CUDA when available, else CPU."""
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={name!r} but CUDA is not available")
    return device


def batch_order(
    lengths: Sequence[int], batch_size: int, rng: random.Random, *, group_by_length: bool
) -> list[list[int]]:
    """Indices of each batch for one epoch (shuffled; length-grouped inside mega-batches when asked)."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    if group_by_length:
        mega = batch_size * 50
        order = [i for s in range(0, len(order), mega) for i in sorted(order[s : s + mega], key=lambda j: -lengths[j])]
    batches = [order[s : s + batch_size] for s in range(0, len(order), batch_size)]
    rng.shuffle(batches)
    return batches


def collate(items: Sequence, pad_id: int, device, *, token_labels: bool):
    """Pad a list of :class:`Window` / :class:`Encoded` to tensors on ``device``."""
    import torch

    width = max(len(it) for it in items)
    ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(items), width), dtype=torch.long)
    labels = torch.full((len(items), width), IGNORE, dtype=torch.long) if token_labels else None
    for r, it in enumerate(items):
        n = len(it.input_ids)
        ids[r, :n] = torch.tensor(it.input_ids)
        mask[r, :n] = 1
        if token_labels and it.labels:
            labels[r, :n] = torch.tensor(it.labels)
    if not token_labels:
        labels = torch.tensor([it.label for it in items], dtype=torch.long)
    return {"input_ids": ids.to(device), "attention_mask": mask.to(device), "labels": labels.to(device)}


def drop_tokens(batch: dict, rate: float, unk_id: int, keep_ids: Sequence[int], generator) -> dict:
    """``batch`` with each input piece replaced by ``unk_id`` with probability ``rate`` (word dropout); padding and
    the ``keep_ids`` (``[CLS]``, ``[SEP]``) are never replaced. Labels are unchanged: the model must still label
    the word, from its context."""
    import torch

    ids = batch["input_ids"]
    draw = torch.rand(ids.shape, generator=generator).to(ids.device) < rate
    droppable = (batch["attention_mask"] == 1) & ~torch.isin(ids, torch.tensor(list(keep_ids), device=ids.device))
    return {**batch, "input_ids": ids.masked_fill(draw & droppable, unk_id)}


def train(
    model,
    items: Sequence,
    *,
    evaluate: Callable[[object], float],
    config,
    seed: int,
    pad_id: int,
    device=None,
    token_labels: bool = True,
    unk_id: int | None = None,
    keep_ids: Sequence[int] = (),
) -> TrainResult:
    """Fine-tune ``model`` in place on ``items``; returns with the best-dev weights loaded.

    ``evaluate(model)`` returns the dev score (higher is better), called
    ``config.evals_per_epoch`` times per epoch; training stops after ``config.patience``
    evaluations without improvement. With ``config.token_dropout`` (> 0), training inputs lose pieces to
    ``unk_id`` (:func:`drop_tokens`), drawn from a generator seeded by ``seed``.
    """
    import torch
    from tqdm.auto import tqdm

    if not items:
        raise ValueError("no training examples (empty train split?)")
    device = device or next(model.parameters()).device
    seed_everything(seed)
    rng = random.Random(seed)
    rate = getattr(config, "token_dropout", 0.0)
    if rate and unk_id is None:
        raise ValueError("token_dropout needs the tokenizer's unk id (unk_id)")
    dropper = torch.Generator().manual_seed(seed) if rate else None
    lengths = [len(it) for it in items]
    steps_per_epoch = math.ceil(len(items) / config.batch_size)
    total = steps_per_epoch * config.epochs
    optimizer, scheduler = _optimizer_and_schedule(model, config, total)
    eval_points = {
        min(steps_per_epoch, round(steps_per_epoch * (k + 1) / config.evals_per_epoch))
        for k in range(config.evals_per_epoch)
    }

    best = _BestDev(config.patience)
    step, stopped = 0, False
    start = time.perf_counter()
    bar = tqdm(total=total, desc=f"fine-tune seed {seed}", disable=not config.progress, leave=False)
    for epoch in range(config.epochs):
        model.train()
        batches = batch_order(lengths, config.batch_size, rng, group_by_length=config.group_by_length)
        for b, idx in enumerate(batches, start=1):
            batch = collate([items[i] for i in idx], pad_id, device, token_labels=token_labels)
            if rate:
                batch = drop_tokens(batch, rate, unk_id, keep_ids, dropper)
            loss = _step(model, batch, optimizer, scheduler, config.max_grad_norm)
            step += 1
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}", best=best.postfix())
            if b in eval_points:
                score = float(evaluate(model))
                model.train()
                stopped = best.record(model, score, step=step, epoch=epoch + b / len(batches), loss=float(loss.item()))
                if stopped:
                    break
        if stopped:
            break
    bar.close()
    if best.state is not None:
        model.load_state_dict(best.state)
    return TrainResult(
        best_score=best.score,
        best_step=best.step,
        steps=step,
        epochs_run=step / steps_per_epoch,
        stopped_early=stopped,
        history=copy.deepcopy(best.history),
        seconds=time.perf_counter() - start,
        train_items=len(items),
    )


def _optimizer_and_schedule(model, config, total_steps: int):
    """AdamW over the pre-trainer's weight-decay groups (biases and LayerNorm weights exempt), and its
    learning-rate curve: linear warm-up over ``config.warmup_ratio`` of the steps, then linear decay."""
    import torch

    from pretrain.optim import param_groups
    from pretrain.schedule import build_lr_scheduler

    optimizer = torch.optim.AdamW(param_groups(model, config.weight_decay), lr=config.learning_rate)
    warmup = int(config.warmup_ratio * total_steps)
    return optimizer, build_lr_scheduler(optimizer, warmup_steps=warmup, total_steps=total_steps)


def _step(model, batch: dict, optimizer, scheduler, max_grad_norm: float):
    """One optimiser step on ``batch`` (gradients clipped to ``max_grad_norm`` when > 0); returns the loss."""
    import torch

    loss = model(**batch).loss
    loss.backward()
    if max_grad_norm > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


@dataclass
class _BestDev:
    """Early stopping: the best dev score so far, its step and weights (on the CPU), the evaluations since it
    last improved, and the history of every evaluation."""

    patience: int
    score: float = -math.inf
    step: int = 0
    state: dict | None = None
    bad: int = 0
    history: list = field(default_factory=list)

    def record(self, model, score: float, *, step: int, epoch: float, loss: float) -> bool:
        """Record one evaluation; True when ``patience`` evaluations in a row did not improve (stop)."""
        self.history.append({"step": step, "epoch": epoch, "dev": score, "loss": loss})
        if score > self.score:
            self.score, self.step, self.bad = score, step, 0
            self.state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
        else:
            self.bad += 1
        return bool(self.patience and self.bad >= self.patience)

    def postfix(self) -> str:
        return f"{self.score:.4f}" if self.score > -math.inf else "-"
