"""One variant of ``bench_pretrain.py`` in its own process (``--worker``): warm-up steps, then timed ones (on a GPU
in windows of back-to-back steps), what torch.compile did, the synchronising calls per step and a profile of where
a step's time goes.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from pretrain_variants import build_stepper


def run_worker(args) -> dict:
    """One variant in this process: ``warmup`` untimed steps (compiling happens there), then ``steps`` timed ones."""
    import torch

    t0 = time.perf_counter()
    step = build_stepper(args)
    for i in range(args.warmup):
        timed_step(step, i)
    warmup_s = time.perf_counter() - t0
    rates = timed_rates(step, args.warmup, args.steps, args.window or (GPU_WINDOW if args.gpu else 1))
    out = {"rates": rates, "warmup_s": warmup_s, **compile_facts(step)}
    if args.window_check:
        out["window_ms"] = ms_per_step_by_window(
            step, args.warmup + args.steps, args.window or (GPU_WINDOW if args.gpu else 1)
        )
    if args.gpu:
        out["max_memory_gib"] = torch.cuda.max_memory_allocated() / 2**30
        out.update(count_syncs(step, args.warmup + args.steps))
        if args.profile:
            out["profile_ms_per_step"] = profile_steps(step, args.warmup + args.steps + 2, args.profile)
    return out


def serve_worker(args) -> None:
    """Like :func:`run_worker`, but each timed step waits for a line on stdin, so that the parent can
    interleave the variants' steps (processes stay separate; load changes hit all variants alike)."""
    t0 = time.perf_counter()
    step = build_stepper(args)
    for i in range(args.warmup):
        timed_step(step, i)
    print(f"@@ready {time.perf_counter() - t0}", flush=True)
    for line in sys.stdin:
        print(f"@@rate {timed_step(step, args.warmup + int(line))}", flush=True)


def timed_step(step, i: int) -> float:
    """Tokens per second of step ``i``, the device synchronised before and after."""
    return timed_window(step, i, 1)


def timed_window(step, first: int, n: int) -> float:
    """Tokens per second of steps ``first .. first + n - 1`` run back to back, the device synchronised only
    before the first and after the last: as in training, the host prepares and launches the next step while
    the device still runs this one."""
    tokens, seconds = _run_window(step, first, n)
    return tokens / seconds


def _run_window(step, first: int, n: int) -> tuple[int, float]:
    """Real tokens and seconds of steps ``first .. first + n - 1``, synchronised before the first and after the last."""
    import torch

    _sync(torch)
    t = time.perf_counter()
    tokens = sum(step(first + i) for i in range(n))
    _sync(torch)
    return tokens, time.perf_counter() - t


def ms_per_step_by_window(step, first: int, window: int) -> dict[str, float]:
    """Milliseconds per step in windows of 1, ``window`` and ``4 * window`` back-to-back steps, from step ``first``.

    Where a step's device idle time comes from: if a long window's step is as slow as a short one's, the device
    waits in every step (the host launches too slowly); if it is faster, the wait is the window's first step
    (the host starting while the device is idle), which training pays once.

    >>> sorted(ms_per_step_by_window(lambda i: 100, 0, 2))
    ['1', '2', '8']
    """
    out = {}
    for n in sorted({1, window, 4 * window}):
        out[str(n)] = 1e3 * _run_window(step, first, n)[1] / n
        first += n
    return out


#: GPU: steps per timed window (see :func:`timed_window`); a per-step synchronisation would leave the device
#: idle while the host starts each step, which training never does.
GPU_WINDOW = 5


def timed_rates(step, first: int, steps: int, window: int) -> list[float]:
    """Tokens/s of ``steps`` timed steps from ``first``, in windows of ``window`` (at least one window).

    >>> timed_rates(lambda i: 100, 0, 7, 3).__len__(), timed_rates(lambda i: 100, 0, 2, 5).__len__()
    (2, 1)
    """
    window = max(1, min(window, steps))
    return [timed_window(step, first + k * window, window) for k in range(max(1, steps // window))]


def compile_facts(step) -> dict:
    """Whether our engine really runs compiled (``engine.compiled``), and what dynamo compiled in this process."""
    from torch._dynamo.utils import counters

    engine = getattr(step, "engine", None)
    return {
        "compiled": None if engine is None else bool(engine.compiled),
        "graphs": int(counters["stats"]["unique_graphs"]),
        "frames_compiled": int(counters["frames"]["ok"]),
        "graph_breaks": int(sum(counters["graph_break"].values())),
    }


def count_syncs(step, first: int, n: int = 2) -> dict:
    """Synchronising CUDA calls per step over ``n`` steps: those CUDA's sync debug mode reports, and
    ``torch.cuda.synchronize()`` calls (which it cannot see; counted by wrapping the function)."""
    import warnings

    import torch

    calls = [0]
    real = torch.cuda.synchronize

    def counting(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    real()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.cuda.synchronize = counting
        torch.cuda.set_sync_debug_mode("warn")
        try:
            for i in range(n):
                step(first + i)
        finally:
            torch.cuda.set_sync_debug_mode("default")
            torch.cuda.synchronize = real
    real()
    reported = [f"{w.filename}:{w.lineno}" for w in seen if "called a synchronizing CUDA operation" in str(w.message)]
    return {
        "syncs_per_step": len(reported) / n,
        "synchronize_calls_per_step": calls[0] / n,
        "sync_sites": sorted(set(reported))[:10],
    }


#: Kernel families by name, first match wins (attention before matrix products: cuDNN's attention kernels
#: are sm90 matrix kernels too).
KERNEL_FAMILIES = (
    ("attention", re.compile(r"flash|fmha|sdpa|attention|dot_do_o|convert_dq", re.I)),
    ("matrix products", re.compile(r"gemm|nvjet|cutlass|xmma|wgmma|splitkreduce|sm90_", re.I)),
    ("optimizer", re.compile(r"lamb|adam|multi_tensor|foreach", re.I)),
    ("fused element-wise (inductor)", re.compile(r"^triton_")),
    ("copies and fills", re.compile(r"memcpy|memset|copy_kernel|fillfunctor", re.I)),
)


def kernel_breakdown(kernels: list[tuple[str, float]], *, wall_ms: float, steps: int) -> dict[str, float]:
    """Milliseconds per step by kernel family (``other`` for the rest), and ``GPU idle``: wall time no kernel ran.

    >>> b = kernel_breakdown([("nvjet_sm90_tst", 6.0), ("triton_poi_fused_gelu_1", 2.0), ("flash_fwd_kernel", 2.0),
    ...                       ("reduce_kernel", 1.0)], wall_ms=12.0, steps=1)
    >>> b["matrix products"], b["attention"], b["fused element-wise (inductor)"], b["other"], b["GPU idle"]
    (6.0, 2.0, 2.0, 1.0, 1.0)
    """
    out = {family: 0.0 for family, _ in KERNEL_FAMILIES} | {"other": 0.0}
    for name, ms in kernels:
        family = next((f for f, pattern in KERNEL_FAMILIES if pattern.search(name)), "other")
        out[family] += ms / steps
    out["GPU idle"] = max(0.0, wall_ms / steps - sum(out.values()))
    return out


def profile_steps(step, first: int, path: Path, n: int = 2) -> dict[str, float]:
    """A torch.profiler table of ``n`` steps (kernels by GPU time) and where the time went, written to ``path``;
    returns :func:`kernel_breakdown` of those steps."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    _sync(torch)
    t = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(n):
            step(first + i)
        _sync(torch)
    wall_ms = 1e3 * (time.perf_counter() - t)
    events = prof.key_averages()
    kernels = [
        (e.key, e.self_device_time_total / 1e3)
        for e in events
        if e.device_type.name == "CUDA" and not getattr(e, "is_user_annotation", False)
    ]
    kernel_ms = sum(ms for _, ms in kernels)
    breakdown = kernel_breakdown(kernels, wall_ms=wall_ms, steps=n)
    table = events.table(sort_by="self_device_time_total", row_limit=30, max_name_column_width=90)
    head = (
        f"{n} steps: wall {wall_ms:.1f} ms, GPU kernel time {kernel_ms:.1f} ms ({100 * kernel_ms / wall_ms:.0f} % busy)"
    )
    per_step = "\n".join(f"  {family}: {ms:.2f} ms per step" for family, ms in breakdown.items())
    path.write_text(f"{head}\n(under the profiler, which slows the host)\n{per_step}\n\n{table}\n")
    return breakdown


def _sync(torch) -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
