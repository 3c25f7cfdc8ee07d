"""The learning-rate schedule: linear warm-up to the peak, then linear decay to zero (BERT/ALBERT's).

The multiplier is a pure function of the number of optimiser steps already taken, so a resumed
run continues the curve exactly (the scheduler's state is one integer, saved in checkpoints).

>>> [round(warmup_linear_decay(s, warmup_steps=2, total_steps=6), 2) for s in range(7)]
[0.5, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0]
"""

from __future__ import annotations

from functools import partial


def warmup_linear_decay(step: int, *, warmup_steps: int, total_steps: int) -> float:
    """Multiplier of the peak learning rate for the update that follows ``step`` completed updates.

    Warm-up starts at ``1 / warmup_steps`` rather than 0, so no update is wasted at a zero rate.
    """
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if total_steps <= warmup_steps:
        return 1.0 if step < total_steps else 0.0
    return max(0.0, (total_steps - step) / (total_steps - warmup_steps))


def build_lr_scheduler(optimizer, *, warmup_steps: int, total_steps: int):
    """A ``torch.optim.lr_scheduler.LambdaLR`` following :func:`warmup_linear_decay` (stepped once per update)."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    from torch.optim.lr_scheduler import LambdaLR

    return LambdaLR(optimizer, partial(warmup_linear_decay, warmup_steps=warmup_steps, total_steps=total_steps))
