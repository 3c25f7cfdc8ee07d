"""The ``tokstudy`` command: a thin shell over the Python API.

Each subcommand lives in its own module beside this file and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a function
taking the parsed arguments and returning an exit code. ``--help`` imports every one of them, so the
analysis and report modules (numpy, scipy, matplotlib behind them) are imported inside the functions that
run a command, each with a ``# deferred:`` reason; everything else is imported at the top.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from tokstudy import __version__, dispatch
from tokstudy.errors import TokstudyError
from tokstudy.inputs.request import SchemeNotAppliedWarning

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
    "pieces",
    "study",
)


def build_parser() -> argparse.ArgumentParser:
    parser = dispatch.ArgumentParser(
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
    return (TokstudyError,)


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _warning_printer(warnings.showwarning)
        return dispatch.run(build_parser(), argv, _errors)


def _warning_printer(previous):
    """Warnings meant for the researcher (unknown-piece coverage, a tokenizer whose pieces cross words, a tag
    scheme registry datasets do not take) as one ``tokstudy: warning:`` line."""

    def show(message, category, filename, lineno, file=None, line=None):
        # deferred: the table package (~50 ms) and the SentencePiece segmenter (~4 ms), only once a warning is shown
        from tokstudy.analysis.table.coverage import UnknownPiecesWarning
        from tokstudy.tokenization.sentencepiece_ import CrossWordPiecesWarning

        if issubclass(category, (UnknownPiecesWarning, CrossWordPiecesWarning, SchemeNotAppliedWarning)):
            print(f"tokstudy: warning: {message}", file=sys.stderr)
            return
        previous(message, category, filename, lineno, file, line)

    return show


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
