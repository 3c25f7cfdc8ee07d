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

This file is the command line and the table; its parts are script modules beside it: ``pretrain_variants.py``
(what each variant steps), ``pretrain_worker.py`` (one variant timed in its own process), ``pretrain_measure.py``
(the processes started, their figures made into a row), ``pretrain_synthetic.py``, ``pretrain_flops.py`` and
``pretrain_hf_baseline.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# sibling script modules: the run's facts, the FLOPs, the synthetic store, the variants, a worker, the parent side
import runinfo  # noqa: E402
from pretrain_flops import PEAK_BF16_TFLOPS  # noqa: E402
from pretrain_measure import measure_row, row_problems  # noqa: E402
from pretrain_synthetic import synthetic_store  # noqa: E402
from pretrain_variants import VARIANTS  # noqa: E402
from pretrain_worker import GPU_WINDOW, run_worker, serve_worker  # noqa: E402


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
