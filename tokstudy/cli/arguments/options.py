"""The options the ``tokstudy`` commands share, declared once, and checked as they are parsed (before any work).

>>> p = argparse.ArgumentParser(); add_bootstrap_arguments(p)
>>> p.parse_args(["--resamples", "200"]).resamples
200
"""

from __future__ import annotations

import argparse
import sys

from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.cli.arguments.outputs import output_file
from tokstudy.data.formats import FORMATS
from tokstudy.data.schemes import normalize_scheme
from tokstudy.data.textio import check_encoding
from tokstudy.errors import DataFormatError

#: ``--tokenizer``'s help, shared by every command that takes one
TOKENIZER_HELP = (
    "tokenizer to study (repeat for several): a SentencePiece model (.model, or any name: it is recognised by "
    "content), a tokenizer.json, a Mistral tekken.json, a vocab.txt, a .tiktoken file (see --tiktoken-pattern), "
    "tiktoken:ENCODING (e.g. tiktoken:cl100k_base; downloaded once, then read from tiktoken's cache, "
    "$TIKTOKEN_CACHE_DIR), a directory holding one, a model directory (save_pretrained: config.json beside the "
    "tokenizer files) or a Hugging Face hub name owner/name[@revision] (read from the hub cache): the model's own "
    "tokenizer, segmenting words as the model reads them; NAME= sets its display name"
)


def add_tiktoken_pattern_argument(parser: argparse.ArgumentParser) -> None:
    """``--tiktoken-pattern NAME|REGEX``: the pre-tokenizer pattern of ``.tiktoken`` rank files."""
    parser.add_argument(
        "--tiktoken-pattern",
        default=None,
        metavar="NAME|REGEX",
        help="pre-tokenizer pattern of the .tiktoken files given (which hold none): cl100k, o200k, p50k, r50k "
        "(= gpt2), or the regex itself; by default a file's sidecar FILE.pattern, else the OpenAI encoding it is "
        "named after (o200k_base.tiktoken); a file with neither is refused",
    )


def add_input_arguments(parser: argparse.ArgumentParser, *, datasets: bool = True) -> None:
    """``--tokenizer``, ``--tiktoken-pattern``, ``--dataset`` and its reader options, ``--data-dir``,
    ``--drop-lone-boundary``, ``--no-progress``."""
    parser.add_argument(
        "--tokenizer",
        "-t",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help=TOKENIZER_HELP,
    )
    add_tiktoken_pattern_argument(parser)
    if datasets:
        parser.add_argument(
            "--dataset",
            "-d",
            action="append",
            default=[],
            metavar="SPEC",
            help="dataset (repeat for several): NAME:SPLIT or NAME:LANGUAGE:SPLIT from the registry (conll2003:test, "
            "wikiann:ru:test), with * for every language present (masakhaner2:*:test), a file path (path.conll, "
            "path.conll@de for its language) or a SNIPS/ATIS-style folder",
        )
        files = parser.add_argument_group("dataset files given as paths")
        files.add_argument(
            "--format",
            default="auto",
            choices=FORMATS,
            help="how to read them: conll (one word per line, tag in a column), tsv (headed "
            'sentence<TAB>label rows, SST-2 style), jsonl (one {"tokens": [...], "tags": [...]} '
            "object per line), span-json (character-span records), slu (a folder of seq.in/seq.out/label); "
            "auto (the default): .jsonl -> jsonl, .json -> span-json, a folder -> slu, else conll",
        )
        files.add_argument(
            "--encoding",
            default="utf-8",
            type=encoding_arg,
            help="their text encoding, e.g. latin-1 for many CoNLL-2002 copies (default utf-8)",
        )
        files.add_argument(
            "--scheme",
            default="auto",
            type=scheme_arg,
            help="their tag scheme: IOB1, IOB2, IOBES (BIOES), BILOU, or auto to detect it (default auto)",
        )
        files.add_argument(
            "--label-column",
            default=None,
            metavar="COLUMN",
            help="where the tag is: a column index for conll (default -1, the last), the header "
            "name for tsv (default label), the key for jsonl (default tags)",
        )
        files.add_argument(
            "--lenient",
            action="store_true",
            default=None,
            help="repair forbidden tag transitions (an I-X after O starts an entity) and count them, "
            "instead of refusing the file; also applies to registry datasets",
        )
        files.add_argument("--language", default=None, help="their language code (default und)")
    parser.add_argument(
        "--data-dir", default=None, help="folder holding the corpora (default: $TOKSTUDY_DATA, else data/corpora)"
    )
    parser.add_argument(
        "--drop-lone-boundary",
        action="store_true",
        help="do not count a lone word-boundary piece ('\u2581' alone before ',', or byte-level BPE's '\u0120' "
        "alone before digits) as a piece "
        "(default: count it, as the mALBERT paper does)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def add_bootstrap_arguments(parser: argparse.ArgumentParser) -> None:
    """``--resamples``, ``--confidence``, ``--seed``, checked as they are parsed (before any work)."""
    parser.add_argument(
        "--resamples",
        type=non_negative_int,
        default=1000,
        help="bootstrap resamples of sentences for the confidence intervals; 0: none (default 1000)",
    )
    parser.add_argument(
        "--confidence",
        type=confidence_arg,
        default=0.95,
        help="confidence level of the intervals, between 0 and 1 (default 0.95)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="random seed of the bootstrap, 0 or more (default 0)"
    )


def add_predictions_arguments(
    parser: argparse.ArgumentParser,
    *,
    required: bool = False,
    help: str = "predictions file of a model (repeat for several models)",
    dataset_help: str = "dataset the predictions are for (name:split)",
) -> None:
    """``--predictions/-p FILE`` (repeatable) and ``--predictions-dataset LABEL``."""
    parser.add_argument(
        "--predictions", "-p", action="append", default=[], required=required, metavar="FILE", help=help
    )
    parser.add_argument("--predictions-dataset", default=None, metavar="LABEL", help=dataset_help)


def add_sentence_argument(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--sentence/-s [DATASET#]ID`` (repeatable), checked by :func:`check_sentence_specs`."""
    parser.add_argument("--sentence", "-s", action="append", default=[], metavar="[DATASET#]ID", help=help)


def add_output_arguments(parser: argparse.ArgumentParser, **helps: str) -> None:
    """An optional output file per keyword, in the order given: ``json="..."`` adds ``--json FILE`` with that help
    (checked as it is parsed: :data:`~tokstudy.cli.arguments.outputs.output_file`).

    >>> p = argparse.ArgumentParser()
    >>> add_output_arguments(p, csv="rows as CSV", json="all as JSON")
    >>> p.parse_args(["--json", "a.json"])
    Namespace(csv=None, json='a.json')
    """
    for name, text in helps.items():
        parser.add_argument(f"--{name}", default=None, type=output_file, metavar="FILE", help=text)


def add_parallel_text_arguments(parser: argparse.ArgumentParser, *, languages: bool = True, help: str = "") -> None:
    """``--parallel-dir DIR`` and, with ``languages``, ``--languages`` and ``--reference`` (read by
    :func:`parity_from_args`)."""
    default = "folder of <lang>.txt[.gz] parallel files (default: xquad_parallel at the data location)"
    parser.add_argument("--parallel-dir", default=None, metavar="DIR", help=help or default)
    if languages:
        parser.add_argument("--languages", default=None, help="comma-separated languages (default: every file)")
        parser.add_argument("--reference", default="en", help="reference language (default en)")


def add_shredded_arguments(parser: argparse.ArgumentParser) -> None:
    """``--shredded [K]`` and ``--shredded-csv FILE``: the frequent words each tokenizer splits into K+ pieces."""
    parser.add_argument(
        "--shredded",
        nargs="?",
        const=3,
        default=None,
        type=min_pieces_arg,
        metavar="K",
        help="also rank, per tokenizer (and language), the words split into K pieces or more (default K 3) by "
        "their frequency in the text, with their pieces, the share of all pieces they account for, and the "
        "words side by side across tokenizers",
    )
    parser.add_argument(
        "--shredded-csv",
        default=None,
        type=output_file,
        metavar="FILE",
        help="write every shredded word ranked (one row per language, tokenizer and word) as CSV; implies --shredded",
    )


class DeprecatedAlias(argparse.Action):
    """An option's former spelling: sets what its new spelling ``new`` sets and says so on stderr."""

    def __init__(self, option_strings, dest, *, new: str, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"warning: {option_string} is deprecated and will be removed; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, True if self.nargs == 0 else values)


def add_deprecated_alias(parser: argparse.ArgumentParser, old: str, new: str, **kwargs) -> None:
    """Accept ``old``, an option's former spelling, as ``new`` for one more release, saying so on stderr.

    ``kwargs`` are ``new``'s own (``dest``, ``type``, ``action="store_true"``); the alias is hidden from ``--help``.
    """
    flag = kwargs.pop("action", None) == "store_true"
    parser.add_argument(
        old, action=DeprecatedAlias, new=new, nargs=0 if flag else None, help=argparse.SUPPRESS, **kwargs
    )


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; expected 0 or more")
    return value


def min_pieces_arg(text: str) -> int:
    """argparse type: a number of pieces, 2 or more."""
    value = non_negative_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"{value} pieces: a shredded word has 2 pieces or more (e.g. 3)")
    return value


def confidence_arg(text: str) -> float:
    """argparse type: a confidence level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1 (exclusive); e.g. 0.95")
    return value


def encoding_arg(text: str) -> str:
    """argparse type: a text encoding Python knows and lines can be cut in."""
    try:
        check_encoding(text)
    except DataFormatError as exc:
        raise argparse.ArgumentTypeError(exc.reason) from None
    return text


def scheme_arg(text: str) -> str:
    """argparse type: a tag scheme name or ``auto``."""
    try:
        return normalize_scheme(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def bootstrap_settings(args) -> BootstrapSettings:
    """The sentence bootstrap that ``--resamples``, ``--confidence`` and ``--seed`` ask for, whole."""
    return BootstrapSettings(args.resamples, args.confidence, args.seed)
