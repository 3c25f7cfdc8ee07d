"""A small training loop: AdamW, linear warm-up/decay, early stopping on dev, seeded.

Why not ``transformers.Trainer``: it requires ``accelerate`` (not a dependency here),
and its evaluation works on pieces, while our dev score must be computed per *word*
after merging windows (and early stopping needs that score). The loop below is ~100
lines, runs unchanged on CPU and CUDA, and keeps the best dev state in memory.

Batches use dynamic padding (each batch is padded to its longest input); with
``group_by_length`` inputs of similar length share a batch (shuffled mega-batches of
50 batches, sorted inside), which cuts padding without fixing the batch order.

On a GPU the step loop never waits for the device: batches go up from pinned memory without blocking, the
forward pass runs under bf16 autocast (``config.autocast_bf16``), AdamW is the fused kernel, word dropout draws
on the device, and the training loss is summed on the device and read once per dev evaluation. The host
therefore queues step after step while the device works; it waits only where a dev score is needed (early
stopping reads it). On CPU the same code runs in float32.

>>> result = train(model, windows, evaluate=dev_f1, config=cfg, seed=1)  # doctest: +SKIP
>>> result.best_score, result.best_step
(0.87, 420)
"""

from __future__ import annotations

import contextlib
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
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
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
    """Pad a list of :class:`Window` / :class:`Encoded` to tensors on ``device`` (on CUDA: copied from pinned memory
    without blocking the host)."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
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
    return {
        "input_ids": to_device(ids, device),
        "attention_mask": to_device(mask, device),
        "labels": to_device(labels, device),
    }


def to_device(tensor, device):
    """``tensor`` on ``device``; a CUDA copy comes from pinned memory and does not block the host (a pageable
    copy would wait for the device to take it)."""
    if getattr(device, "type", str(device)).startswith("cuda"):
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


def drop_tokens(batch: dict, rate: float, unk_id: int, keep_ids: Sequence[int], generator) -> dict:
    """``batch`` with each input piece replaced by ``unk_id`` with probability ``rate`` (word dropout); padding and
    the ``keep_ids`` (``[CLS]``, ``[SEP]``) are never replaced. Labels are unchanged: the model must still label
    the word, from its context. ``keep_ids`` may be a tensor on the batch's device (the training loop builds it
    once); the draw comes from ``generator``, on the generator's device."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    ids = batch["input_ids"]
    draw = torch.rand(ids.shape, generator=generator, device=generator.device).to(ids.device) < rate
    keep = keep_ids if isinstance(keep_ids, torch.Tensor) else torch.tensor(list(keep_ids), device=ids.device)
    droppable = (batch["attention_mask"] == 1) & ~torch.isin(ids, keep)
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
    ``unk_id`` (:func:`drop_tokens`), drawn from a generator seeded by ``seed``. The loss is read on the host only
    at those evaluations (see the module docstring).
    """
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch
    from tqdm.auto import tqdm

    if not items:
        raise ValueError("no training examples (empty train split?)")
    device = torch.device(device) if device is not None else next(model.parameters()).device
    seed_everything(seed)
    rng = random.Random(seed)
    dropper = _WordDropout.build(getattr(config, "token_dropout", 0.0), unk_id, keep_ids, seed, device)
    lengths = [len(it) for it in items]
    steps_per_epoch = math.ceil(len(items) / config.batch_size)
    total = steps_per_epoch * config.epochs
    optimizer, scheduler = _optimizer_and_schedule(model, config, total, device)
    eval_points = {
        min(steps_per_epoch, round(steps_per_epoch * (k + 1) / config.evals_per_epoch))
        for k in range(config.evals_per_epoch)
    }
    bf16 = device.type == "cuda" and getattr(config, "autocast_bf16", True)

    best, losses = _BestDev(config.patience), _LossSum(device)
    step, stopped = 0, False
    start = time.perf_counter()
    bar = tqdm(total=total, desc=f"fine-tune seed {seed}", disable=not config.progress, leave=False)
    for epoch in range(config.epochs):
        model.train()
        batches = batch_order(lengths, config.batch_size, rng, group_by_length=config.group_by_length)
        for b, idx in enumerate(batches, start=1):
            batch = collate([items[i] for i in idx], pad_id, device, token_labels=token_labels)
            if dropper is not None:
                batch = dropper(batch)
            losses.add(_step(model, batch, optimizer, scheduler, config.max_grad_norm, bf16=bf16))
            step += 1
            bar.update(1)
            if b in eval_points:
                score = float(evaluate(model))
                model.train()
                last, mean = losses.read()
                bar.set_postfix(loss=f"{mean:.3f}", best=best.postfix())
                stopped = best.record(
                    model, score, step=step, epoch=epoch + b / len(batches), loss=last, mean_loss=mean
                )
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


@dataclass
class _WordDropout:
    """Word dropout (:func:`drop_tokens`) with what it needs made once: the kept ids as a tensor on the device and a
    seeded generator there (on CUDA the draw never leaves the device)."""

    rate: float
    unk_id: int
    keep: object
    generator: object

    @classmethod
    def build(cls, rate: float, unk_id: int | None, keep_ids: Sequence[int], seed: int, device) -> _WordDropout | None:
        # deferred: torch (~1-2 s), only when a model runs; the module imports without it
        import torch

        if not rate:
            return None
        if unk_id is None:
            raise ValueError("token_dropout needs the tokenizer's unk id (unk_id)")
        keep = torch.tensor(list(keep_ids), dtype=torch.long, device=device)
        return cls(rate, unk_id, keep, torch.Generator(device=device).manual_seed(seed))

    def __call__(self, batch: dict) -> dict:
        return drop_tokens(batch, self.rate, self.unk_id, self.keep, self.generator)


class _LossSum:
    """The training loss summed on the device since the last read; :meth:`read` is the one host read."""

    def __init__(self, device):
        # deferred: torch (~1-2 s), only when a model runs; the module imports without it
        import torch

        self.total = torch.zeros((), device=device)
        self.last = self.total
        self.n = 0

    def add(self, loss) -> None:
        self.last = loss.detach()
        self.total += self.last.float()
        self.n += 1

    def read(self) -> tuple[float, float]:
        """``(last step's loss, mean since the last read)``; waits for the device once."""
        # deferred: torch (~1-2 s), only when a model runs; the module imports without it
        import torch

        last, total = torch.stack([self.last.float(), self.total]).tolist()
        self.total.zero_()
        n, self.n = self.n, 0
        return last, total / max(1, n)


def _optimizer_and_schedule(model, config, total_steps: int, device=None):
    """AdamW over the pre-trainer's weight-decay groups (biases and LayerNorm weights exempt; on CUDA the fused
    kernel), and its learning-rate curve: linear warm-up over ``config.warmup_ratio`` of the steps, then linear
    decay."""
    # deferred: pretrain.optim imports torch; this module imports without it
    import torch

    from pretrain.optim import param_groups
    from pretrain.schedule import build_lr_scheduler

    fused = device is not None and torch.device(device).type == "cuda"
    optimizer = torch.optim.AdamW(
        param_groups(model, config.weight_decay), lr=config.learning_rate, fused=fused or None
    )
    warmup = int(config.warmup_ratio * total_steps)
    return optimizer, build_lr_scheduler(optimizer, warmup_steps=warmup, total_steps=total_steps)


def _step(model, batch: dict, optimizer, scheduler, max_grad_norm: float, *, bf16: bool = False):
    """One optimiser step on ``batch`` (forward under bf16 autocast when ``bf16``; gradients clipped to
    ``max_grad_norm`` when > 0, without a host read); returns the loss, on the device."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    with torch.autocast("cuda", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext():
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

    def record(
        self, model, score: float, *, step: int, epoch: float, loss: float, mean_loss: float | None = None
    ) -> bool:
        """Record one evaluation (``loss``: the last step's; ``mean_loss``: the mean since the previous evaluation);
        True when ``patience`` evaluations in a row did not improve (stop)."""
        self.history.append({"step": step, "epoch": epoch, "dev": score, "loss": loss, "mean_loss": mean_loss})
        if score > self.score:
            self.score, self.step, self.bad = score, step, 0
            self.state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
        else:
            self.bad += 1
        return bool(self.patience and self.bad >= self.patience)

    def postfix(self) -> str:
        return f"{self.score:.4f}" if self.score > -math.inf else "-"
