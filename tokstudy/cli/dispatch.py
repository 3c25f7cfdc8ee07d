"""Shared machinery of the two console scripts: collect subcommand modules, parse, run, report errors.

Each subcommand module exposes ``register(subparsers)``; a module not built yet is skipped,
so one missing command never breaks the others.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Callable, Sequence


def build(parser: argparse.ArgumentParser, package: str, modules: Sequence[str]) -> argparse.ArgumentParser:
    """Add every subcommand of ``package`` (``package.<module>.register``) to ``parser``."""
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        try:
            module = importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            continue
        module.register(sub)
    return parser


def run(parser: argparse.ArgumentParser, argv: list[str] | None, errors: Callable[[], tuple[type, ...]]) -> int:
    """Parse ``argv`` and run the chosen command; the exceptions ``errors()`` names become one-line messages."""
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except errors() as exc:
        print(f"{parser.prog} {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `tokstudy examples ... | head`: the reader left, which is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
        return 0
