"""Shared machinery of the two console scripts: collect subcommand modules, parse, run, report errors.

Each subcommand module exposes ``register(subparsers)``. ``pretrain`` imports every one of them
(:func:`build`); ``tokstudy`` lists its commands in a table of :class:`Command` and imports the module of the
command that runs only (:func:`build_listed`), so that ``tokstudy --help`` pays for none of them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Collection, Iterator, NoReturn, Sequence

from tokstudy.errors import UsageError


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose argument errors put what is wrong on the first line.

    argparse prints the usage first, 14 lines for ``tokstudy stats``, and the message last; here the message
    comes first (``tokstudy stats: error: argument --shredded: ...``) and one line says where the options are.
    The subcommands' parsers are of the same class (``add_subparsers`` makes its parsers with the class of
    the parser it is called on). Exit status 2, as argparse's.

    >>> p = ArgumentParser(prog="tokstudy x"); _ = p.add_argument("--n", type=int)
    >>> import contextlib, io; err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     p.parse_args(["--n", "two"])
    Traceback (most recent call last):
    SystemExit: 2
    >>> print(err.getvalue(), end="")
    tokstudy x: error: argument --n: invalid int value: 'two'
    see `tokstudy x --help`
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\nsee `{self.prog} --help`\n")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an option the chosen command does not know is reported by that command
        (``tokstudy stats: error: unrecognized arguments: --shreded``), whose ``--help`` lists the right ones."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            commands = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
            chosen = commands[0].choices.get(getattr(parsed, commands[0].dest, None)) if commands else None
            (chosen or self).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


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


@dataclass(frozen=True)
class Command:
    """One subcommand as the top-level ``--help`` lists it, without importing its module."""

    #: what is typed on the command line (``corpus-stats``)
    name: str
    #: the module beside the table whose ``register(subparsers)`` adds the full parser (``corpus_stats``)
    module: str
    #: the one-line help, the same as the module's parser gives (a test compares them)
    help: str


def build_listed(
    parser: argparse.ArgumentParser, package: str, commands: Sequence[Command], load: Collection[str] | None = None
) -> argparse.ArgumentParser:
    """Add ``commands`` to ``parser``: the full parser of those named in ``load`` (every one when ``None``),
    imported from ``package.<module>``, and a placeholder with the help line for the others, enough for the
    command list of ``--help`` and for argparse to refuse an unknown command."""
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands:
        if load is None or command.name in load:
            importlib.import_module(f"{package}.{command.module}").register(sub)
        else:
            sub.add_parser(command.name, help=command.help, add_help=False)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named in ``argv``: its first argument that is not an option (the top-level options,
    ``--help`` and ``--version``, take no value), or ``None``.

    >>> chosen_command(["--version"]), chosen_command(["stats", "-d", "x"])
    (None, 'stats')
    """
    return next((a for a in argv if not a.startswith("-")), None)


def run(parser: argparse.ArgumentParser, argv: list[str] | None, errors: Callable[[], tuple[type, ...]]) -> int:
    """Parse ``argv`` and run the chosen command; every failure becomes a message and an exit status.

    The command runs to its end when the reader of its output leaves early (``tokstudy stats ... --json
    out.json | head -3``): what it prints after that is dropped (:class:`OutlivingStream`), the files it was
    asked for are still written, and the status is the command's own.

    Exit statuses: 0 done; 1 the input was refused (the exceptions ``errors()`` names, and
    ``OSError``: a message that names the place); 2 a bad argument (argparse's own, and
    :class:`~tokstudy.errors.UsageError`); 70 an unexpected failure, which is a bug: one line
    says so (set ``TOKSTUDY_TRACEBACK=1`` to see the traceback); 130 interrupted.
    A command that raises ``SystemExit`` itself is reported the same way, never passed through.
    """
    with readers_may_leave():  # `--help | head -1` too
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return _call(args, f"{parser.prog} {args.command}", errors)


def _call(args: argparse.Namespace, where: str, errors: Callable[[], tuple[type, ...]]) -> int:
    """Run the command; its failures as :func:`run` describes them."""
    try:
        return int(args.func(args) or 0)
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


class OutlivingStream:
    """A standard stream whose reader may leave: once its pipe is broken, what is written is dropped.

    Without it, the first ``print`` after ``| head`` has exited raises ``BrokenPipeError`` in the middle of
    the command, before the files it was asked for are written. The stream's descriptor is pointed at
    ``os.devnull`` so that what was buffered cannot fail again at interpreter exit.
    """

    def __init__(self, stream):
        self.stream = stream
        #: whether the reader has left (the pipe broke)
        self.reader_left = False

    def write(self, text: str) -> int:
        if not self.reader_left:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._leave()
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self.reader_left:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._leave()

    def _leave(self) -> None:
        self.reader_left = True
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):  # an in-memory stream (a test's capture) keeps nothing
            return
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)

    def __getattr__(self, name: str):  # encoding, isatty, fileno, ... of the stream itself
        return getattr(self.stream, name)


@contextmanager
def readers_may_leave() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as :class:`OutlivingStream` for the block, flushed when it ends."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = OutlivingStream(sys.stdout), OutlivingStream(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = saved


def _describe(exc: BaseException) -> str:
    """The message of an expected failure; an ``OSError`` names its file as ``file: reason``."""
    if isinstance(exc, OSError) and exc.filename and not str(exc).startswith(str(exc.filename)):
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)
