"""Pre-training throughput: our trainer vs a plain Hugging Face baseline, same model, data and batch.

* **ours**: :class:`pretrain.engine.PretrainEngine` (DeepSpeed) stepping
  :class:`pretrain.model.AlbertPretrainingModule`: the encoder on the real tokens only, the MLM
  decoder (H->E->V) applied only at the masked positions, tanh GELU as one kernel, no host sync per
  step; AdamW on CPU, per-tensor LAMB with bf16 autocast on CUDA; ``torch.compile`` per ``--compile``
  (``auto``: on CUDA only). ``ours-eager`` is the same with compile off; ``ours-padded`` is ``ours``
  with ``unpad`` off (every position of the trimmed batch through the encoder, as before unpadding);
  ``ours-cudnn`` is ``ours`` with ``attention_kernel: cudnn`` (cuDNN's fused attention in the varlen op);
  ``ours-autotune`` compiles with ``compile_mode: max-autotune-no-cudagraphs`` (minutes of compiling);
  ``ours-gemm-autotune`` compiles as ``ours`` with inductor's GEMM autotuning only (``max_autotune_gemm``: Triton
  matrix-product templates tried against cuBLAS, with the bias, GELU and residual work fused into their epilogues
  where a template wins); ``ours-cudagraphs`` compiles with ``compile_mode: reduce-overhead`` (CUDA graphs: a
  graph is recorded per distinct real-token count, so expect re-recording until batches come in fixed buckets).
  The last two need CUDA (:data:`CUDA_ONLY`): elsewhere they are reported as skipped, with the reason.
* **baseline**: ``AlbertForPreTraining(labels=..., sentence_order_label=...)`` as users run it: batches
  padded to ``max_seq_length``, full-vocabulary logits at every position, Hugging Face's ``gelu_new``,
  ``torch.optim.AdamW`` (bf16 autocast on CUDA).

Each variant runs in its own process, so allocators and compiled code never mix. On CPU the processes
run side by side and take their timed steps in turn (load from other jobs hits all alike); on GPU
(or with ``--sequential``) they run one after the other, so the device's memory is never shared.
All read the same examples from one example store, in the same order, with the same batch size and
the same initial weights. Throughput is *real* (non-padding) tokens per second, the median over the
timed steps (after ``--warmup`` untimed ones, where compiling happens); on GPU over windows of
``GPU_WINDOW`` steps run back to back, the device synchronised only at a window's ends (as in
training). The store is synthetic
(Zipf-distributed ids; 90 % of examples fill ``max_seq_length``, 10 % are shorter, as ALBERT's
``short_seq_prob`` = 0.1 gives; 15 % of tokens masked): speed depends on shapes, not on what the ids
mean, and a 128k-piece tokenizer cannot be trained on the small corpora here.

CPU (default): vocabularies 32k and 128k, on the ``tiny`` preset and on a compact ALBERT ``small``
(E=128, H=256, 4 layers, 4 heads)::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_pretrain.py
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_pretrain.py --model small \
        --variants baseline ours-eager ours --compile on

GPU: ALBERT-base, sequence 512, batch 64, bf16: tokens/s, model-FLOPs utilisation, ratio, peak memory::

    .venv/bin/python benchmarks/bench_pretrain.py --gpu
    .venv/bin/python benchmarks/bench_pretrain.py --gpu --seq 128 --batch 256
    .venv/bin/python benchmarks/bench_pretrain.py --gpu --variants baseline ours ours-padded   # what unpadding adds

Prints a Markdown table; ``--json FILE`` also writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import runinfo  # noqa: E402 (a sibling script module)
from pretrain_flops import PEAK_BF16_TFLOPS, train_flops_per_token  # noqa: E402 (a sibling script module)
from pretrain_hf_baseline import baseline_stepper  # noqa: E402
from pretrain_synthetic import synthetic_store  # noqa: E402


def ours_stepper(
    model_cfg,
    store,
    batch: int,
    ds_config: str,
    compile: str = "auto",
    micro: int | None = None,
    unpad: bool = True,
    attention_kernel: str = "flash",
    compile_mode: str = "default",
):
    """``step(i) -> real tokens`` of our trainer (DeepSpeed engine, masked-only decoder, unpadded encoder)."""
    from pretrain.config import TrainConfig
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model
    from pretrain.sampler import GlobalBatchOrder

    model = build_model(model_cfg, vocab_size=store.vocab_size, seed=0)
    cfg = TrainConfig(
        batch_size=batch,
        micro_batch_size=micro,
        total_steps=10**6,
        deepspeed_config=ds_config,
        lr=1e-4,
        compile=compile,
        unpad=unpad,
        attention_kernel=attention_kernel,
        compile_mode=compile_mode,
    )
    engine = PretrainEngine(AlbertPretrainingModule(model), cfg)
    order = GlobalBatchOrder(len(store), batch, seed=0)

    def step(i: int) -> int:
        micro = order.micro_batches(i, rank=0, world_size=1, micro_batch_size=engine.micro_batch_size)
        return engine.step([store.get_batch(m) for m in micro]).tokens

    step.engine = engine
    return step


#: ``TrainConfig.compile_mode`` of the variants that change it.
COMPILE_MODES = {"ours-autotune": "max-autotune-no-cudagraphs", "ours-cudagraphs": "reduce-overhead"}
#: Variants that only mean something on CUDA, and why.
CUDA_ONLY = {
    "ours-cudagraphs": "CUDA graphs need CUDA",
    "ours-gemm-autotune": "inductor's GEMM templates are Triton kernels for CUDA",
}
VARIANTS = ("baseline", "ours", "ours-eager", "ours-padded", "ours-cudnn", "ours-autotune", *CUDA_ONLY)


def build_stepper(args):
    """The ``step(i) -> real tokens`` function of the variant ``args.worker``, built in this process."""
    from pretrain.data.store import ExampleStore

    if args.worker == "ours-gemm-autotune":  # read by inductor when it compiles, so set before the first step
        import torch._inductor.config as inductor_config

        inductor_config.max_autotune_gemm = True

    store = ExampleStore(args.store)
    model_cfg = model_config(args.model[0])
    if args.worker == "baseline":
        return baseline_stepper(model_cfg, store, args.batch, "cuda" if args.gpu else "cpu")
    return ours_stepper(
        model_cfg,
        store,
        args.batch,
        "ds_gpu_bf16.json" if args.gpu else "ds_cpu.json",
        compile="off" if args.worker == "ours-eager" else args.compile,
        micro=args.micro,
        unpad=args.worker != "ours-padded",
        attention_kernel="cudnn" if args.worker == "ours-cudnn" else "flash",
        compile_mode=COMPILE_MODES.get(args.worker, "default"),
    )


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


def _worker_cmd(variant: str, store: Path, model: str, args, *extra: str) -> list[str]:
    cmd = (
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            variant,
            "--store",
            str(store),
            "--model",
            model,
            "--batch",
            str(args.batch),
            "--steps",
            str(args.steps),
            "--warmup",
            str(args.warmup),
            "--compile",
            args.compile,
            *extra,
        ]
        + (["--gpu"] if args.gpu else [])
        + (["--window", str(args.window)] if args.window else [])
    )
    return cmd + (["--micro", str(args.micro)] if args.micro else [])


def _read_tagged(proc, tag: str, log) -> float:
    for line in proc.stdout:
        if line.startswith(f"@@{tag} "):
            return float(line.split()[1])
    log.seek(0)
    raise RuntimeError(f"benchmark worker exited ({proc.wait()}):\n{log.read()[-3000:]}")


def measure_interleaved(variants: list[str], store: Path, model: str, args) -> dict[str, dict]:
    """All variants at once, one process each, their timed steps taken in turn (the CPU default)."""
    import subprocess

    logs = {v: tempfile.TemporaryFile("w+") for v in variants}  # noqa: SIM115 - a file, not a pipe: a full pipe blocks
    procs = {
        v: subprocess.Popen(
            _worker_cmd(v, store, model, args, "--serve"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=logs[v],
            text=True,
        )
        for v in variants
    }
    try:
        out = {v: {"rates": [], "warmup_s": _read_tagged(p, "ready", logs[v])} for v, p in procs.items()}
        for i in range(args.steps):
            for v, p in procs.items():
                p.stdin.write(f"{i}\n")
                p.stdin.flush()
                out[v]["rates"].append(_read_tagged(p, "rate", logs[v]))
    finally:
        for v, p in procs.items():
            p.stdin.close()
            p.wait()
            logs[v].close()
    return out


def measure(variant: str, store: Path, model: str, args) -> dict:
    """Run one variant in its own process (so allocators and compiled code never mix) and read its figures."""
    import subprocess

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    extra = ["--json", str(out)]
    if args.profile_dir and variant == "ours":
        extra += ["--profile", str(args.profile_dir / f"profile_{store.name}_{model}.txt")]
    if args.window_check and variant.startswith("ours"):
        extra += ["--window-check"]
    proc = subprocess.run(_worker_cmd(variant, store, model, args, *extra), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        out.unlink(missing_ok=True)
        return failure(variant, store, proc.stderr)
    result = json.loads(out.read_text())
    out.unlink()
    return result


def failure(variant: str, store: Path, stderr: str) -> dict:
    """A variant whose process failed: ``OOM`` (out of device memory, a result in itself) or the error's last line."""
    if "OutOfMemoryError" in stderr or "CUDA out of memory" in stderr:
        return {"error": "OOM"}
    last = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "no output")
    print(f"{variant} on {store.name} failed:\n{stderr[-3000:]}", file=sys.stderr, flush=True)
    return {"error": f"failed: {last[:200]}"}


def model_config(name: str):
    from pretrain.config import ModelConfig

    if name == "small":
        return ModelConfig(
            name="small", embedding_size=128, hidden_size=256, num_layers=4, num_heads=4, intermediate_size=1024
        )
    return ModelConfig.load(name)


def _sync(torch) -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpu", action="store_true", help="ALBERT-base, sequence 512, bf16 on CUDA (with MFU)")
    p.add_argument("--vocab", type=int, nargs="+", default=None, help="vocabulary sizes (default 32000 128000)")
    p.add_argument(
        "--model",
        nargs="+",
        default=None,
        help="model presets/YAML files, or 'small' (E=128, H=256, 4 layers, 4 heads); CPU default: tiny small",
    )
    p.add_argument("--batch", type=int, default=None, help="sequences per step (CPU 16, GPU 64)")
    p.add_argument("--micro", type=int, default=None, help="our trainer's micro-batch (default: the whole batch)")
    p.add_argument("--seq", type=int, default=None, help="max_seq_length (CPU 128, GPU 512)")
    p.add_argument("--steps", type=int, default=None, help="timed steps per process (CPU 6, GPU 30)")
    p.add_argument(
        "--warmup", type=int, default=None, help="untimed steps first (CPU 2, GPU 5: compiling happens here)"
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="rounds of processes, one per variant each (default 1); rates are pooled",
    )
    p.add_argument(
        "--sequential",
        action="store_true",
        help="run the variants' processes one after the other (the GPU default: one device, so its "
        "memory is never shared) instead of side by side with steps interleaved (the CPU default)",
    )
    p.add_argument(
        "--variants",
        nargs="+",
        default=["baseline", "ours"],
        choices=VARIANTS,
        help="what to run; the first is the reference of the speedup column",
    )
    p.add_argument(
        "--baseline-max-vocab",
        type=int,
        default=None,
        help="skip the Hugging Face loop above this vocabulary (at 128k x 512 x 128 it ran out of the H200's 141 GB)",
    )
    p.add_argument(
        "--window", type=int, default=None, help=f"steps per timed window (GPU {GPU_WINDOW}, CPU 1; see timed_window)"
    )
    p.add_argument(
        "--window-check",
        action="store_true",
        help="also time our variants' steps in windows of 1, w and 4w steps (ms per step; see ms_per_step_by_window)",
    )
    p.add_argument("--compile", default="auto", choices=["auto", "on", "off"], help="TrainConfig.compile of 'ours'")
    p.add_argument("--peak-tflops", type=float, default=None, help="device bf16 peak for MFU (default: by name)")
    p.add_argument("--json", type=Path, default=None, help="also write the results here")
    p.add_argument(
        "--profile-dir",
        type=Path,
        default=None,
        help="GPU: write a torch.profiler table of two steps of 'ours' per configuration into this folder",
    )
    p.add_argument("--profile", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--store", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    return p


def main(argv=None) -> int:
    p = _parser()
    args = p.parse_args(argv)
    args.batch = args.batch or (64 if args.gpu else 16)
    args.steps = args.steps or (30 if args.gpu else 6)
    args.warmup = args.warmup if args.warmup is not None else (5 if args.gpu else 2)
    if args.worker and args.serve:
        serve_worker(args)
        return 0
    if args.worker:
        args.json.write_text(json.dumps(run_worker(args)))
        return 0

    import torch

    if args.gpu and not torch.cuda.is_available():
        p.error("--gpu needs a CUDA device")
    print(runinfo.describe(torch=True), flush=True)
    device = "cuda" if args.gpu else "cpu"
    vocabs = args.vocab or [32000, 128000]
    seq = args.seq or (512 if args.gpu else 128)
    names = args.model or (["base"] if args.gpu else ["tiny", "small"])
    peak = args.peak_tflops
    if args.gpu and peak is None:
        name = torch.cuda.get_device_name()
        peak = next((v for k, v in PEAK_BF16_TFLOPS.items() if k in name), None)
    compile_asked = args.compile == "on" or (args.compile == "auto" and args.gpu)
    if args.profile_dir:
        args.profile_dir.mkdir(parents=True, exist_ok=True)
    rows, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for vocab in vocabs:
            path = synthetic_store(
                Path(tmp) / f"store{vocab}",
                vocab_size=vocab,
                max_seq=seq,
                n=args.batch * (args.steps + args.warmup + 6),
            )
            for name in names:
                row = measure_row(args, path, name, vocab=vocab, seq=seq, device=device, peak=peak)
                problems += row_problems(row, vocab, compile_asked=compile_asked)
                rows.append(row)
                print(json.dumps(row), flush=True)
    print()
    print_table(rows, args.variants, gpu=args.gpu, peak=peak)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    print(runinfo.load_line())
    return 1 if problems else 0


def measure_row(args, path: Path, name: str, *, vocab: int, seq: int, device: str, peak: float | None) -> dict:
    """Every variant of ``args.variants`` on the store at ``path`` with the model ``name``: one table row (with MFU
    on a GPU whose peak is known)."""
    from pretrain.data.store import ExampleStore

    model_cfg = model_config(name)
    results = {v: [] for v in args.variants}
    for _ in range(args.rounds or 1):
        if args.sequential or args.gpu:
            for variant in args.variants:
                results[variant].append(_skipped(variant, vocab, args) or measure(variant, path, name, args))
        else:
            skipped = {v: r for v in args.variants if (r := _skipped(v, vocab, args))}
            runnable = [v for v in args.variants if v not in skipped]
            for variant, result in measure_interleaved(runnable, path, name, args).items():
                results[variant].append(result)
            for variant, result in skipped.items():
                results[variant].append(result)
    row = summarise(results, vocab=vocab, model_cfg=model_cfg, seq=seq, args=args, device=device)
    if args.gpu and peak:
        store = ExampleStore(path)
        lengths = np.asarray(store.lengths).sum()
        mask_rate = float((np.asarray(store.arrays["mlm_positions"]) >= 0).sum() / lengths)
        row["mfu"] = {
            v: rate
            * train_flops_per_token(model_cfg, vocab, seq, mask_rate, masked_only=v != "baseline")
            / (peak * 1e12)
            for v, rate in row["tokens_per_s"].items()
            if rate is not None
        }
    return row


def row_problems(row: dict, vocab: int, *, compile_asked: bool) -> list[str]:
    """What in a row fails the run: an error other than running out of memory or a skip, or a variant that was to
    compile and fell back to eager."""
    problems = [
        f"{v} at vocabulary {vocab}: {err}"
        for v, err in row["errors"].items()
        if err != "OOM" and not err.startswith("skipped")
    ]
    for v, facts in row["compile"].items():
        if compile_asked and v not in ("baseline", "ours-eager") and facts.get("compiled") is False:
            problems.append(f"{v} at vocabulary {vocab}: torch.compile was asked for and fell back to eager")
    return problems


def _skipped(variant: str, vocab: int, args) -> dict | None:
    """The result of a variant not run at ``vocab`` (``--baseline-max-vocab``, or a CUDA-only variant without
    ``--gpu``), else None.

    >>> from types import SimpleNamespace as NS
    >>> _skipped("ours-cudagraphs", 32000, NS(gpu=False, baseline_max_vocab=None))
    {'error': 'skipped (needs CUDA: CUDA graphs need CUDA)'}
    >>> _skipped("baseline", 128000, NS(gpu=True, baseline_max_vocab=64000))
    {'error': 'skipped (above --baseline-max-vocab 64000)'}
    """
    if variant in CUDA_ONLY and not args.gpu:
        return {"error": f"skipped (needs CUDA: {CUDA_ONLY[variant]})"}
    limit = args.baseline_max_vocab
    if variant == "baseline" and limit is not None and vocab > limit:
        return {"error": f"skipped (above --baseline-max-vocab {limit})"}
    return None


def summarise(results: dict[str, list[dict]], *, vocab: int, model_cfg, seq: int, args, device: str) -> dict:
    """One table row from each variant's process results (a failed variant has ``None`` figures and an error)."""
    ok = {v: [r for r in rs if "error" not in r] for v, rs in results.items()}
    errors = {v: next(r["error"] for r in rs if "error" in r) for v, rs in results.items() if len(ok[v]) < len(rs)}
    rates = {v: float(np.median([x for r in rs for x in r["rates"]])) if rs else None for v, rs in ok.items()}
    ref = rates[args.variants[0]]
    row = {
        "vocab": vocab,
        "model": model_cfg.name,
        "seq": seq,
        "batch": args.batch,
        "device": device,
        "tokens_per_s": rates,
        "speedup": {v: r / ref if r is not None and ref else None for v, r in rates.items()},
        "warmup_s": {v: float(np.median([r["warmup_s"] for r in rs])) if rs else None for v, rs in ok.items()},
        "errors": errors,
        "compile": {
            v: {k: rs[-1].get(k) for k in ("compiled", "graphs", "frames_compiled", "graph_breaks")}
            for v, rs in ok.items()
            if rs
        },
        "profile_ms_per_step": {
            v: rs[-1]["profile_ms_per_step"] for v, rs in ok.items() if rs and "profile_ms_per_step" in rs[-1]
        },
        "window_ms": {v: rs[-1]["window_ms"] for v, rs in ok.items() if rs and "window_ms" in rs[-1]},
    }
    if args.gpu:
        row["max_memory_gib"] = {v: max(r["max_memory_gib"] for r in rs) if rs else None for v, rs in ok.items()}
        row["syncs"] = {
            v: {k: rs[-1].get(k) for k in ("syncs_per_step", "synchronize_calls_per_step", "sync_sites")}
            for v, rs in ok.items()
            if rs
        }
    return row


def print_table(rows: list[dict], variants: list[str], *, gpu: bool, peak: float | None) -> None:
    """The Markdown table; a variant that ran out of device memory shows ``OOM`` in its cells."""
    ref = variants[0]

    def cell(row, v, value, fmt):
        if value is not None:
            return fmt.format(value)
        error = row["errors"].get(v, "n/a")
        return "skipped" if error.startswith("skipped") else error.split(":")[0]

    head = "| vocab | model | seq | batch | device | " + " | ".join(f"{v} tokens/s" for v in variants)
    head += " | " + " | ".join(f"{v} / {ref}" for v in variants[1:])
    extra = [f"{v} MFU" for v in variants] if gpu and peak else []
    extra += [f"{v} GiB" for v in variants] if gpu else []
    print(head + "".join(f" | {e}" for e in extra) + " |")
    print("|---" * (5 + 2 * len(variants) - 1 + len(extra)) + "|")
    for r in rows:
        cells = [f"{r['vocab']:,}", r["model"], str(r["seq"]), str(r["batch"]), r["device"]]
        cells += [cell(r, v, r["tokens_per_s"][v], "{:,.0f}") for v in variants]
        cells += [cell(r, v, r["speedup"][v], "{:.2f}x") for v in variants[1:]]
        if "mfu" in r:
            cells += [cell(r, v, r["mfu"].get(v), "{:.1%}") for v in variants]
        if "max_memory_gib" in r:
            cells += [cell(r, v, r["max_memory_gib"][v], "{:.1f}") for v in variants]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
