"""The ``tokstudy`` command: a thin shell over the Python API.

Each subcommand lives in its own module beside this file and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a function
taking the parsed arguments and returning an exit code. Heavy imports stay
inside those functions so that ``tokstudy --help`` is instant.
"""

from __future__ import annotations

import argparse
import sys

from tokstudy import dispatch

#: subcommand modules, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "train_tokenizer",
    "segment",
    "stats",
    "corpus_stats",
    "correlate",
    "correlate_protocols",
    "attribute",
    "examples",
    "report",
    "parity",
    "morph",
    "study",
)


def build_parser() -> argparse.ArgumentParser:
    from tokstudy import __version__

    parser = argparse.ArgumentParser(
        prog="tokstudy",
        description=(
            "Study how subword tokenization splits words, inside and outside named entities, "
            "and whether over-segmented words are the ones models get wrong."
        ),
        epilog="Run `tokstudy COMMAND --help` for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"tokstudy {__version__}")
    return dispatch.build(parser, "tokstudy.cli", COMMAND_MODULES)


def _errors() -> tuple[type, ...]:
    from tokstudy.errors import TokstudyError

    return (TokstudyError,)


def main(argv: list[str] | None = None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _warning_printer(warnings.showwarning)
        return dispatch.run(build_parser(), argv, _errors)


def _warning_printer(previous):
    """Warnings meant for the researcher (unknown-piece coverage, a tokenizer whose pieces cross words, a tag
    scheme registry datasets do not take) as one ``tokstudy: warning:`` line."""

    def show(message, category, filename, lineno, file=None, line=None):
        from tokstudy.analysis.table.coverage import UnknownPiecesWarning
        from tokstudy.specs import SchemeNotAppliedWarning
        from tokstudy.tokenization.sentencepiece_ import CrossWordPiecesWarning

        if issubclass(category, (UnknownPiecesWarning, CrossWordPiecesWarning, SchemeNotAppliedWarning)):
            print(f"tokstudy: warning: {message}", file=sys.stderr)
            return
        previous(message, category, filename, lineno, file, line)

    return show


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
