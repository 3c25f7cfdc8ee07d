"""LAMB is per tensor: :class:`pretrain.lamb.Lamb` and the engine's LAMB step equal a reference LAMB written here.

The reference follows You et al. (2020), algorithm 2, with DeepSpeed FusedLamb's conventions (bias
correction, epsilon outside the square root, weight decay inside the update, trust ratio clamped to
[0.01, 10] and 1 where a norm is 0), one plain loop per tensor in float64. Tolerance: rtol 1e-5 /
atol 1e-7 on float32 weights after the steps (float32 vs float64 rounding only).
"""

from __future__ import annotations

import math

import pytest
import torch

from pretrain.config import ModelConfig, TrainConfig
from pretrain.lamb import Lamb


def reference_lamb(params, grads_per_step, *, lr, betas, eps, weight_decays, flat=False):
    """Weights after LAMB steps; ``params`` is a list of groups (lists of tensors), as float64 copies.

    ``flat=True`` computes one trust ratio per group (what a flattened group gives): not LAMB, used to
    show the test tells the two apart.
    """
    b1, b2 = betas
    groups = [[p.detach().double().clone() for p in g] for g in params]
    m = [[torch.zeros_like(p) for p in g] for g in groups]
    v = [[torch.zeros_like(p) for p in g] for g in groups]
    for t, grads in enumerate(grads_per_step, start=1):
        for gi, group in enumerate(groups):
            updates = []
            for i, w in enumerate(group):
                g = grads[gi][i].double()
                m[gi][i] = b1 * m[gi][i] + (1 - b1) * g
                v[gi][i] = b2 * v[gi][i] + (1 - b2) * g * g
                m_hat = m[gi][i] / (1 - b1**t)
                v_hat = v[gi][i] / (1 - b2**t)
                updates.append(m_hat / (v_hat.sqrt() + eps) + weight_decays[gi] * w)
            if flat:
                wn = math.sqrt(sum(float((w * w).sum()) for w in group))
                un = math.sqrt(sum(float((u * u).sum()) for u in updates))
                ratios = [min(max(wn / un, 0.01), 10.0) if wn > 0 and un > 0 else 1.0] * len(group)
            else:
                ratios = []
                for w, u in zip(group, updates):
                    wn, un = float(w.norm()), float(u.norm())
                    ratios.append(min(max(wn / un, 0.01), 10.0) if wn > 0 and un > 0 else 1.0)
            for i, (u, r) in enumerate(zip(updates, ratios)):
                group[i] = group[i] - lr * r * u
    return groups


def test_lamb_matches_reference_on_a_toy_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        model[2].bias.zero_()  # a zero tensor: its trust ratio must be 1
    decay = [model[0].weight, model[2].weight]
    no_decay = [model[0].bias, model[2].bias]
    start = [[p.detach().clone() for p in decay], [p.detach().clone() for p in no_decay]]
    opt = Lamb(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
        lr=0.05,
        betas=(0.9, 0.99),
        eps=1e-6,
    )
    grads = []
    for step in range(3):
        x = torch.randn(16, 6, generator=torch.Generator().manual_seed(step))
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        grads.append([[p.grad.clone() for p in decay], [p.grad.clone() for p in no_decay]])
        opt.step()
    expected = reference_lamb(start, grads, lr=0.05, betas=(0.9, 0.99), eps=1e-6, weight_decays=[0.1, 0.0])
    for got, want in zip(decay + no_decay, expected[0] + expected[1]):
        torch.testing.assert_close(got.detach().double(), want, rtol=1e-5, atol=1e-7)
    flat = reference_lamb(start, grads, lr=0.05, betas=(0.9, 0.99), eps=1e-6, weight_decays=[0.1, 0.0], flat=True)
    assert max(float((a - b).abs().max()) for a, b in zip(flat[0], expected[0])) > 1e-3  # the test can tell


@pytest.mark.parametrize("ds_config", ["ds_gpu_bf16.json", "ds_cpu.json"])
def test_engine_lamb_step_is_per_tensor(ds_config, store):
    """One engine step (DeepSpeed in between: clipping, its optimizer wrapper) equals clip + reference LAMB."""
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model
    from pretrain.optim import param_groups

    cfg = TrainConfig(
        batch_size=8, total_steps=10, warmup_steps=0, lr=1e-2, optimizer="lamb", deepspeed_config=ds_config
    )
    model = build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)
    groups = [g["params"] for g in param_groups(model, cfg.weight_decay)]
    names = {id(p): n for n, p in model.named_parameters()}
    start = [[p.detach().clone() for p in g] for g in groups]
    batch = store.get_batch(range(8))
    # Reference gradients: the same module and loss, plain autograd, then DeepSpeed's norm clipping (max 1.0).
    ref = AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0))
    tensors = {k: torch.from_numpy(v) for k, v in batch.items()}
    ref(**tensors)["loss"].backward()
    ref_params = dict(ref.model.named_parameters())
    ref_grads = [[ref_params[names[id(p)]].grad.clone() for p in g] for g in groups]
    norm = math.sqrt(sum(float(g.double().pow(2).sum()) for gs in ref_grads for g in gs))
    coef = min(1.0, 1.0 / (norm + 1e-6))
    ref_grads = [[g * coef for g in gs] for gs in ref_grads]

    engine = PretrainEngine(AlbertPretrainingModule(model), cfg)
    assert engine.optimizer_name == "lamb"
    lr = engine.current_lr()
    engine.step([batch], step=0)
    expected = reference_lamb(
        start, [ref_grads], lr=lr, betas=cfg.betas, eps=cfg.eps, weight_decays=[cfg.weight_decay, 0.0]
    )
    live = dict(engine.module.model.named_parameters())
    for g, want_group in zip(groups, expected):
        for p, want in zip(g, want_group):
            name = names[id(p)]
            torch.testing.assert_close(
                live[name].detach().double(), want, rtol=1e-5, atol=1e-6, msg=lambda m, n=name: f"{n}: {m}"
            )
