"""What the command line names, as :mod:`tokstudy.inputs` requests; loaded through it, with what it has to tell
printed; and what the commands derive from the loaded inputs (sentences, parity, shredded words).

The library (:mod:`tokstudy.inputs`) takes typed requests and returns the datasets and tokenizers with the
repairs and warnings as data; this module is the only place that turns argparse's ``Namespace`` into those
requests, and the one that prints what comes back.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.shredded import DEFAULT_MIN_PIECES, shredded_table
from tokstudy.analysis.table import SegmentationTable, segmentation_table
from tokstudy.cli.arguments.options import bootstrap_settings
from tokstudy.data.formats import FileOptions
from tokstudy.data.repairs import RepairLog
from tokstudy.datalocation import corpus_dir
from tokstudy.errors import UsageError
from tokstudy.inputs.load import load_inputs
from tokstudy.inputs.request import DatasetRequest, Inputs, TokenizerRequest

#: the options of :func:`add_input_arguments` that become :class:`FileOptions` fields, under the same names
FILE_OPTION_NAMES = ("format", "encoding", "scheme", "lenient", "label_column")


def file_options(args) -> FileOptions:
    """The reader options of the command line (each option is named as its ``FileOptions`` field)."""
    return FileOptions(**{name: getattr(args, name) for name in FILE_OPTION_NAMES})


def dataset_request(args) -> DatasetRequest:
    """The datasets named on the command line (``--dataset``) and how their files are read."""
    return DatasetRequest(args.dataset, data_dir=args.data_dir, language=args.language, options=file_options(args))


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
    inputs = load_inputs(datasets=datasets, tokenizers=tokenizers)
    print_input_notes(inputs)
    return inputs


def inputs_from_args(args, *, tokenizers: bool = True) -> Inputs:
    """The datasets (and, with ``tokenizers``, the tokenizers) named on the command line (:func:`load_requested`)."""
    return load_requested(datasets=dataset_request(args), tokenizers=tokenizer_request(args) if tokenizers else None)


def table_from_args(args) -> tuple[SegmentationTable, dict[str, RepairLog]]:
    """``(table, repairs)``: the segmentation table of the datasets and tokenizers named on the command line, and
    what lenient reading repaired, ``{dataset name: its repair log}`` (:meth:`Inputs.repair_logs`)."""
    inputs = inputs_from_args(args)
    table = segmentation_table(inputs.datasets, inputs.tokenizers, progress=not args.no_progress)
    return table, inputs.repair_logs()


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


def check_sentence_specs(specs) -> None:
    """Refuse a malformed ``--sentence`` before any work (ids are checked against the table later)."""
    for spec in specs:
        sid = spec.rpartition("#")[2]
        if not sid.strip().isdigit():
            raise UsageError(f"--sentence {spec}: {sid!r} is not a sentence id; expected [DATASET#]ID, e.g. 12")


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


def parity_from_args(args) -> list:
    """Parity of the tokenizers named on the command line on its parallel text (``parity``, ``report --parity``)."""
    # every command imports these shared helpers; only parity and report --parity need what this one reads with
    # deferred: the parity statistics and the parallel-text reader (~4 ms), for those two only
    from tokstudy.analysis.stats.parity import parity, read_parallel_text

    directory = args.parallel_dir or corpus_dir("xquad_parallel", args.data_dir)
    langs = args.languages.split(",") if args.languages else None
    if langs and args.reference not in langs:
        langs = [args.reference] + langs
    paragraphs = read_parallel_text(directory, langs)
    segs = tokenizers_from_args(args)
    return parity(paragraphs, segs, reference=args.reference, bootstrap=bootstrap_settings(args))


def shredded_from_args(table, args):
    """The shredded-word rankings of the table (:func:`tokstudy.analysis.stats.shredded.shredded_table`), every
    shredded word kept (the Markdown shows the first)."""
    return shredded_table(table, min_pieces=args.shredded or DEFAULT_MIN_PIECES, limit=None)


def piece_agreements(specs, *, bootstrap: BootstrapSettings, table=None, dataset: str | None = None) -> list:
    """Piece agreement (:func:`~tokstudy.analysis.model_errors.piece_agreement.piece_agreement`) of each per-piece
    predictions file ``FILE[=NAME]`` (``tokstudy pieces``, ``tokstudy report --piece-predictions``): ``NAME``
    names the model (default: the file's ``model_name``); models of the same name get their file's name beside
    it; with ``table``, each file is checked against its dataset (``dataset``, as ``--predictions-dataset``
    names it) first. What each file holds is printed, one line each."""
    # every command imports these shared helpers; only pieces and report --piece-predictions need this one's
    # deferred: the per-piece predictions reader and the agreement statistics (~20 ms), for those two only
    from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
    from tokstudy.analysis.model_errors.piece_predictions import read_piece_predictions

    results = []
    for spec in specs:
        path, _, name = spec.partition("=")
        preds = read_piece_predictions(path)
        res = piece_agreement(preds, bootstrap=bootstrap, table=table, dataset=dataset)
        results.append(replace(res, model=name) if name else res)
        print(f"{path}: {preds.n_words} words, {len(preds.sentences)} sentences, labels {' '.join(preds.labels)}")
    names = [r.model for r in results]
    if len(set(names)) < len(names):
        results = [replace(r, model=f"{r.model} ({Path(s.partition('=')[0]).name})") for r, s in zip(results, specs)]
    return results
