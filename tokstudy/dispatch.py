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
    """Parse ``argv`` and run the chosen command; every failure becomes a message and an exit status.

    Exit statuses: 0 done; 1 the input was refused (the exceptions ``errors()`` names, and
    ``OSError``: a message that names the place); 2 a bad argument (argparse's own, and
    :class:`~tokstudy.errors.UsageError`); 70 an unexpected failure, which is a bug: one line
    says so (set ``TOKSTUDY_TRACEBACK=1`` to see the traceback); 130 interrupted.
    A command that raises ``SystemExit`` itself is reported the same way, never passed through.
    """
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    where = f"{parser.prog} {args.command}"
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `tokstudy examples ... | head`: the reader left, which is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
        return 0
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exc:  # a command that exits by itself: keep its status, print its message as ours
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        message = str(exc.code)
        prefix = f"{where}: "
        message = message.removeprefix(prefix)
        message = message.removeprefix("error: ")
        print(f"{where}: error: {message}", file=sys.stderr)
        return 1
    except Exception as exc:
        from tokstudy.errors import UsageError

        if isinstance(exc, UsageError):
            print(f"{where}: error: {exc}", file=sys.stderr)
            return 2
        if isinstance(exc, errors()) or isinstance(exc, OSError):
            print(f"{where}: error: {_describe(exc)}", file=sys.stderr)
            return 1
        if os.environ.get("TOKSTUDY_TRACEBACK"):
            raise
        print(
            f"{where}: internal error: {type(exc).__name__}: {exc}\n"
            f"This is a bug in tokstudy, not in your input; please report it with the command line "
            f"(TOKSTUDY_TRACEBACK=1 shows the traceback).",
            file=sys.stderr,
        )
        return 70


def _describe(exc: BaseException) -> str:
    """The message of an expected failure; an ``OSError`` names its file as ``file: reason``."""
    if isinstance(exc, OSError) and exc.filename and not str(exc).startswith(str(exc.filename)):
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)
