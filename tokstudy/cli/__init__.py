"""The ``tokstudy`` command: a thin shell over the Python API.

Each subcommand lives in its own module beside this file and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a function
taking the parsed arguments and returning an exit code. :data:`COMMANDS` names each command's module and
help line, so ``tokstudy --help`` lists them without importing any, and ``tokstudy COMMAND ...`` imports
that command's module only: a command module imports what it uses at its top, and defers only the heavy
optional packages (torch, matplotlib, dask), each with a ``# deferred:`` reason.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Collection

from tokstudy import __version__, dispatch
from tokstudy.dispatch import Command
from tokstudy.errors import TokstudyError
from tokstudy.inputs.request import SchemeNotAppliedWarning

#: the subcommands, in the order ``--help`` lists them; each help line is the one its module's parser gives
COMMANDS = (
    Command(
        "train-tokenizer",
        "train_tokenizer",
        "train tokenizers (several vocabulary sizes) on a random sample of raw text",
    ),
    Command("segment", "segment", "write one row per word with its pieces under each tokenizer (CSV/Parquet)"),
    Command(
        "stats",
        "stats",
        "additional segmentation of NE vs non-NE words (Table 4), fertility, continued words, ...",
    ),
    Command(
        "corpus-stats",
        "corpus_stats",
        "fertility, continued words, unknown pieces, compression, entropy of raw text per language (local or dask)",
    ),
    Command(
        "correlate",
        "correlate",
        "Pearson/Spearman correlation between a word's pieces and the model's errors on it",
    ),
    Command(
        "correlate-protocols",
        "correlate_protocols",
        "Pearson r of a word's pieces against the model's errors under every protocol (which gives r = 0.44?)",
    ),
    Command(
        "attribute",
        "attribute",
        "odds ratio of a mislabel per extra piece, adjusted for frequency, entity status, length (logistic regression)",
    ),
    Command(
        "examples",
        "examples",
        "show sentences word by word: pieces under each tokenizer, gold label, each model's prediction",
    ),
    Command(
        "report",
        "report",
        "write Table 3, Table 4, breakdowns, correlations and figures (Markdown, CSV, JSON, PNG, SVG)",
    ),
    Command("parity", "parity", "tokenizer parity and fertility per language on parallel paragraphs (XQuAD)"),
    Command(
        "morph",
        "morph",
        "do the tokenizers cut words at morpheme boundaries? MorphScore, boundary precision / recall / F1",
    ),
    Command(
        "pieces",
        "pieces",
        "pieces that disagree, and entity F1 / word-level r under each aggregation (first, average, max, "
        "majority) from per-piece predictions",
    ),
    Command("study", "study", "run the whole study: tokenizers -> ALBERTs -> fine-tuning -> Tables 1-4 and the report"),
)


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``tokstudy`` parser with the full parser of the commands named in ``load`` (every command when
    ``None``) and the help line of the others (:func:`tokstudy.dispatch.build_listed`)."""
    parser = dispatch.ArgumentParser(
        prog="tokstudy",
        description=(
            "Study how subword tokenization splits words, inside and outside named entities, "
            "and whether over-segmented words are the ones models get wrong."
        ),
        epilog="Run `tokstudy COMMAND --help` for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"tokstudy {__version__}")
    return dispatch.build_listed(parser, "tokstudy.cli", COMMANDS, load)


def _errors() -> tuple[type, ...]:
    return (TokstudyError,)


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _warning_printer(warnings.showwarning)
        argv = sys.argv[1:] if argv is None else argv
        chosen = dispatch.chosen_command(argv)
        return dispatch.run(build_parser(load=[chosen] if chosen else []), argv, _errors)


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
