"""``pretrain export``: a checkpoint as a Hugging Face ALBERT directory.

A thin wrapper over :func:`pretrain.export.export_checkpoint`.
"""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "export",
        help="write a checkpoint as a Hugging Face model directory (config.json, model.safetensors, tokenizer)",
        description="Export a training checkpoint to a directory that AutoModelForPreTraining / ForMaskedLM / "
        "ForTokenClassification and pipeline('fill-mask') load. CHECKPOINT may be a run directory or its "
        "checkpoints/ directory (the newest intact checkpoint is taken) or one step_* directory.",
    )
    p.add_argument("--checkpoint", required=True, help="run directory, checkpoints/ directory or step_* directory")
    p.add_argument("--output", required=True, help="directory to write")
    p.add_argument(
        "--tokenizer", default=None, help="tokenizer directory (default: the one recorded in the checkpoint)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # deferred: the checkpoint reader, not for pretrain --help
    from pretrain.export import export_checkpoint

    out = export_checkpoint(args.checkpoint, args.output, tokenizer_dir=args.tokenizer)
    print(f"exported {out}")
    return 0
