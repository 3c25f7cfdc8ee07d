"""LAMB (You et al., 2020) with the trust ratio of every parameter tensor, in plain torch.

Why not DeepSpeed's FusedLamb: DeepSpeed hands the optimizer *flattened* parameter groups whenever
it manages precision or partitions state (ZeRO stages 1-3: ``stage_1_and_2.py`` sets each group's
``params`` to ``[single_partition_of_fp32_groups[i]]``; bf16 at ZeRO 0: ``bf16_optimizer.py`` sets
``[fp32_groups_flat_partition[i]]``; fp16: ``fused_optimizer.py`` sets ``[fp32_groups_flat[i]]``;
read in deepspeed 0.19.8). FusedLamb then computes one trust ratio ``||w|| / ||update||`` per
*group* (all weight matrices together), which is not LAMB: LAMB's point is a layer-wise step size.
This optimizer keeps the parameters as tensors, so it is used with ZeRO stage 0 and fp32 master
weights (mixed precision from ``torch.autocast``), where DeepSpeed passes the real tensors through.

Per tensor ``w`` with gradient ``g`` at step ``t`` (DeepSpeed FusedLamb's defaults: bias correction,
epsilon outside the square root, decoupled weight decay inside the update, ratio clamped to
``[min_trust, max_trust]``, and 1 when either norm is 0)::

    m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2
    u = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + weight_decay * w
    w = w - lr * clamp(||w|| / ||u||, min_trust, max_trust) * u

Everything runs as ``torch._foreach_*`` kernels over the group's tensors, and the trust ratios stay
on the device: a step never waits for the host.

>>> opt = Lamb(model.parameters(), lr=1e-3, weight_decay=0.01)   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


class Lamb(torch.optim.Optimizer):
    """Layer-wise adaptive moments (LAMB), one trust ratio per parameter tensor.

    Args:
        params: tensors or parameter groups (``weight_decay`` may differ per group).
        lr, betas, eps, weight_decay: as in AdamW.
        min_trust, max_trust: bounds of the trust ratio (DeepSpeed's ``min_coeff`` / ``max_coeff``).
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        min_trust: float = 0.01,
        max_trust: float = 10.0,
    ):
        if lr <= 0 or eps <= 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
            raise ValueError(f"Lamb: invalid lr={lr}, eps={eps}, weight_decay={weight_decay} or betas={betas}")
        if not 0 < min_trust <= max_trust:
            raise ValueError(f"Lamb: need 0 < min_trust <= max_trust, got {min_trust}, {max_trust}")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "min_trust": min_trust,
            "max_trust": max_trust,
        }
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            if any(p.grad.is_sparse for p in params):
                raise RuntimeError("Lamb does not support sparse gradients")
            for p in params:
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["step"] += 1
            # All tensors of a group advance together, so one step count serves the group.
            t = self.state[params[0]]["step"]
            grads = [p.grad for p in params]
            m = [self.state[p]["exp_avg"] for p in params]
            v = [self.state[p]["exp_avg_sq"] for p in params]
            b1, b2 = group["betas"]
            torch._foreach_lerp_(m, grads, 1.0 - b1)
            torch._foreach_mul_(v, b2)
            torch._foreach_addcmul_(v, grads, grads, value=1.0 - b2)
            denom = torch._foreach_sqrt(v)
            torch._foreach_div_(denom, (1.0 - b2**t) ** 0.5)
            torch._foreach_add_(denom, group["eps"])
            update = torch._foreach_div(m, denom)
            torch._foreach_div_(update, 1.0 - b1**t)
            if group["weight_decay"]:
                torch._foreach_add_(update, params, alpha=group["weight_decay"])
            w_norm = torch.stack(torch._foreach_norm(params))
            u_norm = torch.stack(torch._foreach_norm(update))
            ratio = torch.where(
                (w_norm > 0) & (u_norm > 0),
                (w_norm / u_norm.clamp(min=torch.finfo(u_norm.dtype).tiny)).clamp(
                    group["min_trust"], group["max_trust"]
                ),
                torch.ones_like(w_norm),
            )
            torch._foreach_mul_(update, list((ratio * -group["lr"]).unbind()))
            torch._foreach_add_(params, update)
        return loss
