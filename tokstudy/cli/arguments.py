"""Command-line arguments shared by the ``tokstudy`` commands, turned into the library's plain values.

The library (:mod:`tokstudy.inputs`) takes typed requests (specs, paths and :class:`FileOptions`) and returns
the datasets and tokenizers with what the user should be told; this module is the only place that knows
argparse's ``Namespace``: it declares the shared options, checks them as they are parsed (before any work),
turns them into those requests, and prints what comes back.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from dataclasses import replace
from pathlib import Path

from tokstudy.data.formats import FORMATS, FileOptions
from tokstudy.data.schemes import normalize_scheme
from tokstudy.data.textio import check_encoding
from tokstudy.datalocation import corpus_dir
from tokstudy.errors import DataFormatError, UsageError
from tokstudy.inputs.request import DatasetRequest, Inputs, TokenizerRequest

#: ``--tokenizer``'s help, shared by every command that takes one
TOKENIZER_HELP = (
    "tokenizer to study (repeat for several): a SentencePiece model (.model, or any name: it is recognised by "
    "content), a tokenizer.json, a Mistral tekken.json, a vocab.txt, a .tiktoken file (see --tiktoken-pattern), "
    "tiktoken:ENCODING (e.g. tiktoken:cl100k_base; downloaded once, then read from tiktoken's cache, "
    "$TIKTOKEN_CACHE_DIR), or a directory holding one; NAME= sets its display name"
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
    """An optional output file per keyword, in the order given: ``json="..."`` adds ``--json FILE`` with that help.

    >>> p = argparse.ArgumentParser()
    >>> add_output_arguments(p, csv="rows as CSV", json="all as JSON")
    >>> p.parse_args(["--json", "a.json"])
    Namespace(csv=None, json='a.json')
    """
    for name, text in helps.items():
        parser.add_argument(f"--{name}", default=None, metavar="FILE", help=text)


#: the options whose value is a file the command writes (a figure's stem: STEM.png and STEM.svg beside it)
OUTPUT_FILES = ("json", "csv", "languages_csv", "markdown", "figure", "languages_figure")


def check_outputs(args, *, files: tuple[str, ...] = OUTPUT_FILES, folders: tuple[str, ...] = ()) -> None:
    """Refuse, before any work, an output file or folder the command could not write: a folder that
    cannot be created (a file stands in its way) or written to, a file name that is a folder.

    ``files`` and ``folders`` are ``args`` attributes (``--json`` is ``json``); those not set are skipped.
    The refusal is the ``OSError`` the write would raise (exit status 1, one line naming the place first),
    only sooner; a write that fails later all the same (a full disk) is reported the same way.

    >>> import tempfile, types; d = tempfile.mkdtemp()
    >>> check_outputs(types.SimpleNamespace(json=d, csv=None))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    IsADirectoryError: [Errno 21] is a folder: --json needs a file name: '...'
    """
    for dests, folder in ((files, False), (folders, True)):
        for dest in dests:
            value = getattr(args, dest, None)
            if value:
                check_writable(Path(value).expanduser(), f"--{dest.replace('_', '-')}", folder=folder)


def check_writable(path: Path, option: str, *, folder: bool = False) -> None:
    """Raise the ``OSError`` that writing the file (or, with ``folder``, the folder) ``path`` would meet."""
    if path.exists():
        if path.is_dir() and not folder:
            raise IsADirectoryError(errno.EISDIR, f"is a folder: {option} needs a file name", str(path))
        if folder and not path.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, f"is a file: {option} needs a folder", str(path))
        if not os.access(path, os.W_OK | (os.X_OK if folder else 0)):
            raise PermissionError(errno.EACCES, f"not writable, so {option} cannot be written", str(path))
        return
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise NotADirectoryError(
            errno.ENOTDIR, f"is a file, not a folder, so {option} {path} cannot be written", str(ancestor)
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise PermissionError(
            errno.EACCES, f"not writable (permission denied), so {option} {path} cannot be written", str(ancestor)
        )


def add_parallel_text_arguments(parser: argparse.ArgumentParser, *, languages: bool = True, help: str = "") -> None:
    """``--parallel-dir DIR`` and, with ``languages``, ``--languages`` and ``--reference`` (read by
    :func:`parity_from_args`)."""
    default = "folder of <lang>.txt[.gz] parallel files (default: xquad_parallel at the data location)"
    parser.add_argument("--parallel-dir", default=None, metavar="DIR", help=help or default)
    if languages:
        parser.add_argument("--languages", default=None, help="comma-separated languages (default: every file)")
        parser.add_argument("--reference", default="en", help="reference language (default en)")


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


def bootstrap_kwargs(args) -> dict:
    return {"n_resamples": args.resamples, "confidence": args.confidence, "seed": args.seed}


#: the options of :func:`add_input_arguments` that become :class:`FileOptions` fields, under the same names
FILE_OPTION_NAMES = ("format", "encoding", "scheme", "lenient", "label_column")


def file_options(args) -> FileOptions:
    """The reader options of the command line (each option is named as its ``FileOptions`` field)."""
    return FileOptions(**{name: getattr(args, name) for name in FILE_OPTION_NAMES})


def dataset_request(args, specs=None) -> DatasetRequest:
    """The datasets named on the command line (``--dataset``, or ``specs``) and how their files are read."""
    return DatasetRequest(
        args.dataset if specs is None else specs,
        data_dir=args.data_dir,
        language=args.language,
        options=file_options(args),
    )


def train_request(args) -> DatasetRequest:
    """The training split(s) of ``--train-dataset``: files read as ``--format`` says, registry datasets in the
    scheme of their own files (``--scheme`` and the other reader options are for the datasets studied)."""
    return DatasetRequest(
        args.train_dataset, data_dir=args.data_dir, language=args.language, options=FileOptions(format=args.format)
    )


def tokenizer_request(args) -> TokenizerRequest:
    """The tokenizers named on the command line (``--tokenizer``, ``--tiktoken-pattern``, ``--drop-lone-boundary``)."""
    return TokenizerRequest(
        args.tokenizer,
        count_lone_boundary=not args.drop_lone_boundary,
        tiktoken_pattern=getattr(args, "tiktoken_pattern", None),
    )


def load_requested(*, datasets: DatasetRequest | None = None, tokenizers: TokenizerRequest | None = None) -> Inputs:
    """:func:`tokstudy.inputs.load.load_inputs`, and what reading the inputs has to tell printed
    (:func:`print_input_notes`)."""
    # deferred: the readers and tokenizer libraries (~50 ms); --help imports every command module, hence this one
    from tokstudy.inputs.load import load_inputs

    inputs = load_inputs(datasets=datasets, tokenizers=tokenizers)
    print_input_notes(inputs)
    return inputs


def inputs_from_args(args, *, tokenizers: bool = True) -> Inputs:
    """The datasets (and, with ``tokenizers``, the tokenizers) named on the command line (:func:`load_requested`)."""
    return load_requested(datasets=dataset_request(args), tokenizers=tokenizer_request(args) if tokenizers else None)


def table_from_args(args):
    """``(table, repairs)``: the segmentation table of the datasets and tokenizers named on the command line, and
    what lenient reading repaired (the list ``stats --json`` holds under ``"repairs"``)."""
    from tokstudy.analysis.table import segmentation_table  # deferred: numpy-backed table code, not for --help

    inputs = inputs_from_args(args)
    table = segmentation_table(inputs.datasets, inputs.tokenizers, progress=not args.no_progress)
    return table, inputs.repair_records()


def tokenizers_from_args(args, *, count_lone_boundary: bool | None = None) -> list:
    """The tokenizers named on the command line (:func:`tokenizer_request`); ``count_lone_boundary`` overrides
    ``--drop-lone-boundary``."""
    request = tokenizer_request(args)
    if count_lone_boundary is not None:
        request = replace(request, count_lone_boundary=count_lone_boundary)
    return load_requested(tokenizers=request).tokenizers


def print_input_notes(inputs: Inputs) -> None:
    """What reading the inputs has to tell, on stderr beside the results on stdout: what lenient reading
    repaired in each dataset (counts by kind, the first places), and the warnings."""
    for repair in inputs.repairs:
        print(repair.text + "\n", file=sys.stderr)
    for warning in inputs.warnings:
        print(f"tokstudy: warning: {warning}", file=sys.stderr)


def write_repairs_beside(json_path, repairs: list[dict]):
    """Where a command's ``--json`` is a list (``correlate``, ``examples``), what lenient reading repaired is
    written beside it as ``<name>.repairs.json`` (``out.json`` -> ``out.repairs.json``): the list that
    ``stats --json`` holds under ``"repairs"``. The list keeps its shape for the scripts that read it, and
    the file is written only when a tag was repaired. Returns its path, or None."""
    from tokstudy.report.tables import write_json  # deferred: the report package, only when a file is written

    if not repairs:
        return None
    path = Path(json_path)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return write_json(repairs, path.with_name(f"{stem}.repairs.json"))


def resolve_sentences(table, specs) -> list[int]:
    """Row indices of the ``[DATASET#]ID`` sentence specs; a bad one raises :class:`UsageError`."""
    out = []
    for spec in specs:
        ds, sep, sid = spec.rpartition("#")
        if not sep:
            if len(table.datasets) > 1:
                raise UsageError(
                    f"--sentence {spec}: several datasets; write DATASET#ID with DATASET one of {list(table.datasets)}"
                )
            ds = table.datasets[0]
        try:
            out.append(table.find_sentence(ds, int(sid)))
        except (KeyError, ValueError) as exc:
            raise UsageError(f"--sentence {spec}: {exc}") from None
    return out


def check_sentence_specs(specs) -> None:
    """Refuse a malformed ``--sentence`` before any work (ids are checked against the table later)."""
    for spec in specs:
        sid = spec.rpartition("#")[2]
        if not sid.strip().isdigit():
            raise UsageError(f"--sentence {spec}: {sid!r} is not a sentence id; expected [DATASET#]ID, e.g. 12")


def parity_from_args(args) -> list:
    """Parity of the tokenizers named on the command line on its parallel text (``parity``, ``report --parity``)."""
    from tokstudy.analysis.stats.parity import parity, read_parallel_text  # deferred: numpy stats, not for --help

    directory = args.parallel_dir or corpus_dir("xquad_parallel", args.data_dir)
    langs = args.languages.split(",") if args.languages else None
    if langs and args.reference not in langs:
        langs = [args.reference] + langs
    paragraphs = read_parallel_text(directory, langs)
    segs = tokenizers_from_args(args)
    return parity(paragraphs, segs, reference=args.reference, **bootstrap_kwargs(args))


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
        metavar="FILE",
        help="write every shredded word ranked (one row per language, tokenizer and word) as CSV; implies --shredded",
    )


def min_pieces_arg(text: str) -> int:
    """argparse type: a number of pieces, 2 or more."""
    value = non_negative_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"{value} pieces: a shredded word has 2 pieces or more (e.g. 3)")
    return value


def shredded_from_args(table, args):
    """The shredded-word rankings of the table (:func:`tokstudy.analysis.stats.shredded.shredded_table`), every
    shredded word kept (the Markdown shows the first)."""
    from tokstudy.analysis.stats.shredded import DEFAULT_MIN_PIECES, shredded_table  # deferred: numpy, not for --help

    return shredded_table(table, min_pieces=args.shredded or DEFAULT_MIN_PIECES, limit=None)
