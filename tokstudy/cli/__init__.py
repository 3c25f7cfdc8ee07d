"""The ``tokstudy`` command: a thin shell over the Python API.

Each subcommand lives in its own module beside this file and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a function
taking the parsed arguments and returning an exit code. Heavy imports stay
inside those functions so that ``tokstudy --help`` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tokstudy.errors import TokstudyError

#: subcommand modules, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "train_tokenizer",
    "segment",
    "stats",
    "correlate",
    "examples",
    "report",
    "parity",
    "study",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokstudy",
        description=(
            "Study how subword tokenization splits words, inside and outside named entities, "
            "and whether over-segmented words are the ones models get wrong."
        ),
        epilog="Run `tokstudy COMMAND --help` for the options of one command.",
    )
    from tokstudy import __version__

    parser.add_argument("--version", action="version", version=f"tokstudy {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"tokstudy.cli.{name}")
        except ModuleNotFoundError as exc:  # a command not built yet must not break the others
            if exc.name != f"tokstudy.cli.{name}":
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
    try:
        return int(args.func(args) or 0)
    except TokstudyError as exc:
        print(f"tokstudy {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
