"""Pre-training and fine-tuning share one seeding, one learning-rate curve and one weight-decay rule."""

from __future__ import annotations

import doctest

import pytest

torch = pytest.importorskip("torch")


def test_doctest():
    import pretrain.seeding

    assert doctest.testmod(pretrain.seeding).failed == 0


def test_seed_everything_repeats_every_generator():
    import random

    import numpy as np

    from pretrain.seeding import seed_everything

    draws = []
    for _ in range(2):
        seed_everything(11)
        draws.append((random.random(), float(np.random.rand()), float(torch.rand(1))))
    assert draws[0] == draws[1]


def test_fine_tuning_uses_the_pre_trainers_schedule_and_groups():
    """The fine-tuner's optimizer steps follow warmup_linear_decay; biases and LayerNorm weights get no decay."""
    from pretrain.finetune import trainer
    from pretrain.optim import param_groups
    from pretrain.schedule import build_lr_scheduler, warmup_linear_decay

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.LayerNorm(4))
    groups = param_groups(model, 0.01)
    assert [len(g["params"]) for g in groups] == [1, 3]  # the Linear weight; its bias and the LayerNorm pair
    opt = torch.optim.AdamW(groups, lr=1.0)
    sched = build_lr_scheduler(opt, warmup_steps=2, total_steps=6)
    lrs = []
    for _ in range(6):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs == [warmup_linear_decay(s, warmup_steps=2, total_steps=6) for s in range(6)]
    assert trainer.seed_everything.__module__ == "pretrain.seeding"
