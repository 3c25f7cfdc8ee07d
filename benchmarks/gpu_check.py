"""Check and measure every GPU path of the pre-trainer on a bare GPU machine, in one command.

A GPU lease is short (a rented GPU by the hour, a cluster job with a time limit, 15 minutes here), the
machine may reach no network, and a first contact should never cost the whole lease on a crash. So
the check is prepared on the development machine and runs once, end to end, there::

    make gpu-wheels              # here: the carried folder .gpu-carry/ (wheels the GPU image lacks, a data slice)
    make gpu-check               # there: every step in its own process with its own time limit
    make gpu-check STUDY=1       # there, with time left: the whole `gpu-check` study (<= 5 minutes)
    make gpu-check STUDY=lease   # there, first on a lease: the one-lease study (<= 9 minutes; gpu_lease.py)
    make gpu-check DRY_RUN=1     # here, on CPU: prepare and check the folder, then the same steps at toy sizes

Steps (budgets in :data:`GPU_BUDGET`; one failure never stops the others):

* ``install``: the carried wheels into a private folder put on ``PYTHONPATH``; every package imports from it;
* ``data`` (in the background, on the CPU, while the GPU steps run): a tokenizer and an example store
  from the carried slice of ``raw_text_large``;
* ``attention``: ``bench_attention.py``, the attention kernels at ALBERT-base's shape (FlashAttention-2 and
  cuDNN through torch's varlen op, SDPA's backends), eager: TFLOP/s and agreement with the first;
* ``bench-512``: ``bench_pretrain.py --gpu`` at sequence 512, batch 128, vocabularies 32k and 128k, ours and the
  Hugging Face baseline: tokens/s, MFU against the device's dense bf16 peak, peak memory, compile facts,
  synchronising calls per step, and a profile of two steps of ours;
* ``pytest-gpu``: ``pytest -m gpu`` (varlen FlashAttention against the padded loss, cuDNN's varlen attention
  against FlashAttention's, no host syncs, one bf16 step of the base preset, LAMB per tensor, a resumed run
  equal to an uninterrupted one);
* ``bench-128``: ours at sequence 128, 32k;
* ``train``: ``pretrain train`` with the base preset for 50 steps on the store of ``data``;
* ``export``: ``pretrain export`` of that run and a ``fill-mask`` pipeline on the export (one process: torch and
  transformers imported once).

Everything goes into one folder (``--out``, default ``$OUT``): ``summary.md`` (per step: status, time,
versions and device, compile facts, synchronising calls, peak memory, steady tokens/s), ``summary.json``
and one log per step. Nothing is downloaded on the GPU machine: its ``python3`` (which has torch) runs
everything with the carried wheels on ``PYTHONPATH``; ``make``'s virtual environment is not used there.

This file is the command line; the check's parts are script modules beside it: ``gpu_carry.py`` (the carried
folder), ``gpu_check_plan.py`` (sizes, budgets, the steps' order), ``gpu_runner.py`` (a step in its own process
under its limit), ``gpu_check_steps.py`` (the steps), ``gpu_check_summary.py`` (summary.md, summary.json, the
archive of the rest), ``gpu_versions.py`` (the versions and device it gives) and ``gpu_lease.py`` (the one-lease
study).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

# script modules of benchmarks/: the carried folder, the plan (sizes, budgets, steps), the runner, the steps and
# the summary
import gpu_lease  # noqa: E402
from gpu_carry import CARRY, check_carry, prepare_data, prepare_wheels, preparing, tree_bytes  # noqa: E402
from gpu_check_plan import DRY, DRY_BUDGET, GPU, GPU_BUDGET, OPTIONAL_STEPS, STEPS, selected_steps  # noqa: E402
from gpu_check_steps import (  # noqa: E402
    Setting,
    export_and_fill_mask,
    install,
    run_check_study,
    run_device_steps,
    run_train_and_export,
    start_data,
)
from gpu_check_summary import write_summary  # noqa: E402
from gpu_runner import Runner, step_env  # noqa: E402


def run_check(args) -> int:
    """Check the carried folder, install the wheels, then the study asked for or the steps (:func:`selected_steps`);
    the summary last."""
    work = Path(tempfile.mkdtemp(prefix="gpu-check-"))
    at = Setting(
        sizes=DRY if args.dry_run else GPU,
        budgets=DRY_BUDGET if args.dry_run else GPU_BUDGET,
        out=Path(args.out).resolve(),
        work=work,
        carry=Path(args.carry).resolve(),
        python=args.python,
        dry_run=args.dry_run,
    )
    at.out.mkdir(parents=True, exist_ok=True)
    compile_cache = work / "compile-cache" if args.dry_run else ROOT / "results" / "torch-compile-cache"
    runner = Runner(at.out, step_env(os.environ, site=work / "site", carry=at.carry, compile_cache=compile_cache),
                    at.python)  # fmt: skip
    t_start = time.perf_counter()
    problems = check_carry(at.carry)
    if problems:
        print("\n".join(f"[gpu-check] carried folder: {p}" for p in problems), file=sys.stderr)
        return 2
    versions = work / "versions.json"  # written by install's import check where that costs nothing more
    install(runner, at.carry, work / "site", at.budgets["install"], dry_run=args.dry_run, versions=versions)
    if args.study == "lease":
        # kept under the checkout (ignored by git) so that a second command on a warm machine reuses its stages
        results = work / "gpu-lease" if args.dry_run else ROOT / "results" / "gpu-lease"
        gpu_lease.run_lease(runner, out=at.out, results=results, python=at.python, dry_run=args.dry_run,
                            started=t_start)  # fmt: skip
    elif args.study:
        run_check_study(runner, at)
    else:
        wanted = selected_steps(args.only)
        data_job = start_data(runner, at) if "train" in wanted else None
        run_device_steps(runner, at, wanted)
        if data_job is not None:
            run_train_and_export(runner, at, data_job)
    return write_summary(at.out, runner, args, time.perf_counter() - t_start, versions=versions)


# -- command line -----------------------------------------------------------------------------------


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="fill the carried folder (wheels, data slice) and check it")
    prep.add_argument("--carry", default=str(CARRY))
    prep.add_argument("--data", default=os.environ.get("TOKSTUDY_DATA") or str(ROOT.parent / "shared" / "data"))
    run = sub.add_parser("run", help="run the check (on the GPU machine, or --dry-run on CPU)")
    run.add_argument("--out", default=os.environ.get("OUT") or str(ROOT / "results" / "gpu-check"))
    run.add_argument("--carry", default=str(CARRY))
    run.add_argument("--python", default=sys.executable, help="the interpreter that runs every step")
    run.add_argument("--dry-run", action="store_true", help="CPU, toy sizes: the same steps, the same commands")
    run.add_argument(
        "--study",
        nargs="?",
        const="check",
        choices=("check", "lease"),
        help="instead: the gpu-check study (`--study`, <= 5 minutes) or the one-lease study (`--study lease`, "
        "<= 9 minutes: benchmarks/gpu_lease.py)",
    )
    run.add_argument(
        "--only",
        default=None,
        metavar="STEP[,STEP]",
        help=f"run only these steps (of {', '.join((*STEPS, *OPTIONAL_STEPS))})",
    )
    ex = sub.add_parser("export", help=argparse.SUPPRESS)  # the export step: `pretrain export`, then a fill-mask
    ex.add_argument("--checkpoint", required=True)
    ex.add_argument("--output", required=True)
    args = p.parse_args(argv)
    if args.command == "prepare":
        carry = Path(args.carry)
        with preparing(carry):
            prepare_wheels(carry / "wheels")
            prepare_data(Path(args.data), carry / "data")
            problems = check_carry(carry)
        for problem in problems:
            print(f"[gpu-wheels] {problem}", file=sys.stderr)
        print(f"[gpu-wheels] {carry}: {tree_bytes(carry) / 2**20:.1f} MiB, wheels and data for the GPU check")
        return 1 if problems else 0
    if args.command == "export":
        return export_and_fill_mask(args.checkpoint, args.output)
    return run_check(args)


if __name__ == "__main__":
    sys.exit(main())
