"""The ``pretrain`` command: ALBERT pre-training, export and fine-tuning.

Each subcommand lives in its own module beside this file and exposes
``register(subparsers)``; torch, transformers and deepspeed are imported inside
the command functions only, so ``pretrain --help`` is instant.
"""

from __future__ import annotations

import argparse
import sys

from tokstudy import dispatch
from tokstudy.errors import TokstudyError

COMMAND_MODULES = ("prepare", "train", "export", "finetune", "evaluate", "compare")


def build_parser() -> argparse.ArgumentParser:
    parser = dispatch.ArgumentParser(
        prog="pretrain",
        description="Pre-train compact ALBERT models with DeepSpeed, export them to Hugging Face format, "
        "and fine-tune them for NER/slot filling and sentence classification.",
        epilog="Run `pretrain COMMAND --help` for the options of one command.",
    )
    return dispatch.build(parser, "pretrain.cli", COMMAND_MODULES)


def _errors() -> tuple[type, ...]:
    return (TokstudyError, ValueError, FileNotFoundError)


def main(argv: list[str] | None = None) -> int:
    return dispatch.run(build_parser(), argv, _errors)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
