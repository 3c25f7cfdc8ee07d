"""``tokstudy pieces``: do a word's pieces agree on its label, and what each way of labelling words from pieces
costs (entity F1, word errors, the word-level r)."""

from __future__ import annotations

from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table
from tokstudy.cli.arguments import (
    add_output_arguments,
    load_requested,
    piece_agreements,
    print_written,
    staged_outputs,
)
from tokstudy.errors import UsageError
from tokstudy.inputs.request import DatasetRequest
from tokstudy.report import tables as rt
from tokstudy.report.pieces import pieces_markdown, pieces_rows


def register(sub) -> None:
    p = sub.add_parser(
        "pieces",
        help="pieces that disagree, and entity F1 / word-level r under each aggregation (first, average, max, "
        "majority) from per-piece predictions",
        description=(
            "Read per-piece predictions (the predictions.<split>.pieces.tsv the fine-tuner writes with "
            "piece_predictions: true, or `pretrain evaluate --piece-predictions FILE`) and print, per file: the "
            "share of multi-piece words whose pieces carry different labels, by number of pieces and NE / non-NE; "
            "the error rate of words whose pieces agree and disagree; and for each way of giving a word its "
            "label (first piece, average of probabilities, max probability, majority vote, a tie going to the "
            "label that comes first in the word): entity precision / recall / F1 (seqeval's default mode), word "
            "errors and Pearson r of a word's pieces with its error. The pieces are the model's own, from the "
            "file. With --dataset, each file is first checked against the split it is for, as `tokstudy "
            "correlate` checks word predictions, and the figures name it. "
            "Example: tokstudy pieces runs/c03/seed-1/predictions.test.pieces.tsv -d conll2003:test --csv pieces.csv"
        ),
    )
    p.add_argument(
        "piece_predictions",
        nargs="+",
        metavar="FILE[=NAME]",
        help="per-piece predictions file (one per model); =NAME names the model (default: the file's model_name)",
    )
    p.add_argument(
        "--bootstrap", type=int, default=1000, metavar="N", help="sentence resamples for r's CI (default 1000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument(
        "--dataset",
        "-d",
        action="append",
        default=[],
        metavar="SPEC",
        help="the split the files are for (repeat for several; a file's dataset= and split= metadata pick its "
        "own): NAME:SPLIT or NAME:LANGUAGE:SPLIT from the registry (conll2003:test), or a file path; each file "
        "must hold every sentence of it (or the first N its subset=first:N declares) with its words and gold tags",
    )
    p.add_argument(
        "--data-dir", default=None, help="folder holding the corpora (default: $TOKSTUDY_DATA, else data/corpora)"
    )
    add_output_arguments(p, csv="also write every figure as CSV", json="also write every result as JSON")
    p.set_defaults(func=run)


def run(args) -> int:

    if args.bootstrap < 0:
        raise UsageError(f"--bootstrap {args.bootstrap}: expected a number of resamples >= 0")
    table = _dataset_table(args) if args.dataset else None
    boot = BootstrapSettings(args.bootstrap, seed=args.seed)
    results = piece_agreements(args.piece_predictions, bootstrap=boot, table=table)
    print("\n" + pieces_markdown(results))
    with staged_outputs() as out:
        if args.csv:
            rt.write_csv(pieces_rows(results), out.file(args.csv))
        if args.json:
            rt.write_json(list(results), out.file(args.json))
    print_written(out, first="\n")
    return 0


def _dataset_table(args):
    """The ``--dataset`` splits as a table of their words, tags and sentence ids (no tokenizer: the pieces are the
    files' own), for the files to be checked against."""
    datasets = load_requested(datasets=DatasetRequest(args.dataset, data_dir=args.data_dir)).datasets
    return segmentation_table(datasets, [], progress=False)
