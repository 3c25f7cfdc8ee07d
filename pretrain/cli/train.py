"""``pretrain train``: pre-train an ALBERT model on an example store.

A thin wrapper over :func:`pretrain.train.train`.
"""

from __future__ import annotations

import argparse
import os
import sys

from pretrain.cli.fields import add_config_flags, config_overrides
from pretrain.config import CONFIG_DIR, ModelConfig, TrainConfig


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train",
        help="pre-train ALBERT (MLM + SOP) on an example store with DeepSpeed",
        description="Pre-train an ALBERT model on an example store made by `pretrain prepare`. One process runs as a "
        "plain command; for several, launch with `torchrun --nproc_per_node N -m pretrain train ...` or the "
        "`deepspeed` launcher (see docs/pretrain.md).",
    )
    p.add_argument("--model", default="tiny", help="preset (tiny, base, large, xlarge, xxlarge) or a model YAML file")
    p.add_argument("--train-config", default=None, help="training YAML (pretrain/configs/train_tiny.yaml if omitted)")
    p.add_argument("--data", required=True, help="example store directory (from `pretrain prepare`)")
    p.add_argument("--tokenizer", required=True, help="tokenizer directory the store was made with")
    p.add_argument("--resume", action="store_true", help="continue from the newest intact checkpoint in --output")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--local_rank", "--local-rank", type=int, default=None, help=argparse.SUPPRESS)  # deepspeed launcher
    add_config_flags(
        p,
        TrainConfig,
        title="training settings (TrainConfig)",
        description="Each flag given replaces the train YAML's value; the others keep it.",
        aliases={"output_dir": ["--output"]},
        notes={"total_steps": "A shorter run than the YAML's keeps a warm-up that fits in it."},
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # deferred: pretrain.engine and pretrain.train import torch and deepspeed, not for pretrain --help
    from pretrain.engine import NonFiniteLossError
    from pretrain.train import train

    model = ModelConfig.load(args.model)
    cfg = TrainConfig.load(args.train_config or CONFIG_DIR / "train_tiny.yaml")
    overrides = config_overrides(args, TrainConfig)
    if "total_steps" in overrides:  # a shorter run keeps a warm-up that fits in it, unless one is given
        overrides.setdefault("warmup_steps", min(cfg.warmup_steps, overrides["total_steps"]))
    cfg = cfg.replace(**overrides) if overrides else cfg
    if cfg.output_dir is None:
        raise ValueError("give --output (or output_dir in the train config)")
    try:
        result = train(
            model,
            cfg,
            data=args.data,
            tokenizer=args.tokenizer,
            output=cfg.output_dir,
            resume=args.resume,
            progress=not args.no_progress,
        )
    except NonFiniteLossError as exc:
        print(f"pretrain train: stopped: {exc}", file=sys.stderr)
        return 3
    if result.final_model_dir is not None and os.environ.get("RANK", "0") == "0":
        print(f"trained {result.step} steps; Hugging Face model in {result.final_model_dir}")
    return 0
