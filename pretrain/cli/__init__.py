"""The ``pretrain`` command: ALBERT pre-training, export and fine-tuning.

Each subcommand lives in its own module beside this file and exposes
``register(subparsers)``; torch, transformers and deepspeed are imported inside
the command functions only, so ``pretrain --help`` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = ("prepare", "train", "export", "finetune", "evaluate", "compare")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pretrain",
        description="Pre-train compact ALBERT models with DeepSpeed, export them to Hugging Face format, "
        "and fine-tune them for NER/slot filling and sentence classification.",
        epilog="Run `pretrain COMMAND --help` for the options of one command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"pretrain.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pretrain.cli.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from tokstudy.errors import TokstudyError

    try:
        return int(args.func(args) or 0)
    except (TokstudyError, ValueError, FileNotFoundError) as exc:
        print(f"pretrain {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
