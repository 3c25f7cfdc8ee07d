"""Attention kernels for ALBERT-base's shape (12 heads of 64, sequence 512, bf16): forward + backward, eager.

Which kernel should the unpadded encoder's attention use on this GPU? Every candidate runs the same
examples (``--batch`` of them; 90 % full length, 10 % shorter, like the example store) and is timed
with CUDA events, forward and forward + backward, after warm-up calls:

* ``varlen flash``: torch's ``varlen_attn`` as the trainer calls it (FlashAttention-2; ``attention_kernel:
  flash``, the default);
* ``varlen cudnn``: the same op with cuDNN's fused attention (``attention_kernel: cudnn``);
* ``sdpa flash`` / ``sdpa cudnn`` / ``sdpa efficient``: ``scaled_dot_product_attention`` on the padded
  ``[B, H, T, D]`` layout with a key mask, each backend forced (what a padded model gets).

Then all again on full-length rows only (no mask: what a batch without padding gets). Each row gives
TFLOP/s on the *real* tokens (``4 * H * D * sum(L_i^2)`` forward, 2.5 times that backward), the time per
call, and the largest difference from the first kernel (``varlen flash``) in the output and the three
gradients at real positions (bf16: about 1e-2 is rounding). A kernel this torch or device cannot run
shows why in its row; the others still run. On CPU (the dry run) only ``sdpa math`` runs, at toy sizes.

    python benchmarks/bench_attention.py --json attention.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import runinfo  # noqa: E402 (a sibling script module)


def example_lengths(batch: int, seq: int, seed: int = 0) -> list[int]:
    """``batch`` lengths: 90 % ``seq``, 10 % uniform in ``[seq // 8, seq)`` (ALBERT's ``short_seq_prob``).

    >>> lengths = example_lengths(20, 512)
    >>> len(lengths), lengths.count(512), all(64 <= n <= 512 for n in lengths)
    (20, 18, True)
    """
    import random

    rng = random.Random(seed)
    short = max(1, round(batch * 0.1))
    return [rng.randrange(seq // 8, seq) if i < short else seq for i in range(batch)][::-1]


def attention_flops(lengths: list[int], heads: int, head_dim: int) -> tuple[float, float]:
    """``(forward, backward)`` FLOPs of exact attention on these examples (FlashAttention's count).

    >>> attention_flops([2], 1, 1)
    (16.0, 40.0)
    """
    forward = 4.0 * heads * head_dim * sum(n * n for n in lengths)
    return forward, 2.5 * forward


def _inputs(torch, lengths, heads, head_dim, device, dtype):
    gen = torch.Generator(device=device).manual_seed(0)
    n = sum(lengths)
    q, k, v, grad = (torch.randn(n, heads, head_dim, device=device, dtype=dtype, generator=gen) for _ in range(4))
    cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32, device=device)
    return q, k, v, grad, cu


def _varlen(kernel: str):
    def run(torch, q, k, v, cu, lengths):
        from pretrain.unpad import select_varlen_kernel, varlen_attn

        select_varlen_kernel(kernel)
        return varlen_attn(q, k, v, cu, cu, max(lengths), max(lengths))

    return run


def _sdpa(backend: str):
    def run(torch, q, k, v, cu, lengths):
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

        b, t = len(lengths), max(lengths)
        mask = torch.arange(t, device=q.device)[None, :] < torch.tensor(lengths, device=q.device)[:, None]
        rows = mask.reshape(-1).nonzero().squeeze(1)

        def padded(x):
            full = x.new_zeros(b * t, *x.shape[1:]).index_copy(0, rows, x)
            return full.view(b, t, *x.shape[1:]).transpose(1, 2)

        attn_mask = None if all(n == t for n in lengths) else mask[:, None, None, :]
        with sdpa_kernel(getattr(SDPBackend, backend)):
            out = F.scaled_dot_product_attention(padded(q), padded(k), padded(v), attn_mask=attn_mask)
        return out.transpose(1, 2).reshape(b * t, *q.shape[1:]).index_select(0, rows)

    return run


KERNELS = {
    "varlen flash": _varlen("flash"),
    "varlen cudnn": _varlen("cudnn"),
    "sdpa flash": _sdpa("FLASH_ATTENTION"),
    "sdpa cudnn": _sdpa("CUDNN_ATTENTION"),
    "sdpa efficient": _sdpa("EFFICIENT_ATTENTION"),
    "sdpa math": _sdpa("MATH"),
}


def _timed(torch, fn, iters: int) -> float:
    """Seconds per call of ``fn`` (CUDA events on a GPU, the wall clock on CPU)."""
    if torch.cuda.is_available():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / iters
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t) / iters


def measure_kernel(torch, run, inputs, lengths, *, warmup: int, iters: int) -> dict:
    """Forward and forward+backward seconds of one kernel, and its output and gradients (for the comparison)."""
    q, k, v, grad, cu = inputs
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]

    def forward():
        with torch.no_grad():
            return run(torch, q, k, v, cu, lengths)

    def both():
        for t in leaves:
            t.grad = None
        run(torch, *leaves, cu, lengths).backward(grad)

    for _ in range(warmup):
        forward()
        both()
    fwd_s, both_s = _timed(torch, forward, iters), _timed(torch, both, iters)
    both()
    return {"forward_s": fwd_s, "total_s": both_s, "tensors": [forward(), *(t.grad for t in leaves)]}


def compare(tensors: list, reference: list) -> float:
    """The largest absolute difference over output and gradients (float)."""
    return max(float((a.float() - b.float()).abs().max()) for a, b in zip(tensors, reference))


def run_all(args) -> list[dict]:
    """Every kernel on the store's mix of lengths, then on full-length rows only (where no mask is needed)."""
    return [
        *run_lengths(args, example_lengths(args.batch, args.seq), "mixed"),
        *run_lengths(args, [args.seq] * args.batch, "full"),
    ]


def run_lengths(args, lengths: list[int], label: str) -> list[dict]:
    import torch

    cuda = torch.cuda.is_available()
    device, dtype = ("cuda", torch.bfloat16) if cuda else ("cpu", torch.float32)
    inputs = _inputs(torch, lengths, args.heads, args.head_dim, device, dtype)
    fwd_flops, bwd_flops = attention_flops(lengths, args.heads, args.head_dim)
    names = [n for n in KERNELS if n != "sdpa math"] if cuda else ["sdpa math"]
    rows, reference = [], None
    for name in names:
        row = {"kernel": name, "lengths": label, "batch": args.batch, "seq": args.seq, "tokens": sum(lengths)}
        try:
            got = measure_kernel(torch, KERNELS[name], inputs, lengths, warmup=args.warmup, iters=args.iters)
        except Exception as exc:  # noqa: BLE001 - a kernel this torch/device lacks is a result, not a crash
            first = (str(exc).strip().splitlines() or [""])[0]
            row["error"] = f"{type(exc).__name__}: {first[:160]}"
        else:
            reference = reference or got["tensors"]
            row |= {
                "forward_ms": 1e3 * got["forward_s"],
                "forward_backward_ms": 1e3 * got["total_s"],
                "forward_tflops": fwd_flops / got["forward_s"] / 1e12,
                "backward_tflops": bwd_flops / max(got["total_s"] - got["forward_s"], 1e-9) / 1e12,
                "max_abs_diff": compare(got["tensors"], reference),
            }
        finally:
            if cuda:
                from pretrain.unpad import select_varlen_kernel

                select_varlen_kernel("flash")
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def print_table(rows: list[dict]) -> None:
    print("| lengths | kernel | fwd ms | fwd+bwd ms | fwd TFLOP/s | bwd TFLOP/s | max diff vs first |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if "error" in r:
            print(f"| {r['lengths']} | {r['kernel']} | {r['error']} | | | | |")
            continue
        times = f"{r['forward_ms']:.2f} | {r['forward_backward_ms']:.2f}"
        rates = f"{r['forward_tflops']:.0f} | {r['backward_tflops']:.0f}"
        print(f"| {r['lengths']} | {r['kernel']} | {times} | {rates} | {r['max_abs_diff']:.3g} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=128, help="examples (default 128)")
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = p.parse_args(argv)
    print(runinfo.describe(torch=True), flush=True)
    rows = run_all(args)
    print()
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    print(runinfo.load_line())
    return 0 if any("error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
