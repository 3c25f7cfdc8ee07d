"""``tokstudy attribute``: does segmentation predict errors once frequency, entity status and length are fixed?"""

from __future__ import annotations

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.attribution import attribute_errors, word_counts
from tokstudy.analysis.model_errors.fit_worker import FitWorker
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.cli.arguments import (
    add_input_arguments,
    add_output_arguments,
    load_requested,
    output_stem,
    print_written,
    staged_outputs,
    table_from_args,
    train_request,
)
from tokstudy.report import attribution as ra
from tokstudy.report import figures
from tokstudy.report import tables as rt
from tokstudy.report.attribution_rows import AttributionTable
from tokstudy.report.repairs import RepairsTable


def register(sub) -> None:
    p = sub.add_parser(
        "attribute",
        help=(
            "odds ratio of a mislabel per extra piece, adjusted for frequency, entity status, length "
            "(logistic regression)"
        ),
        description=(
            "For each tokenizer and predictions file: a logistic regression (statsmodels Logit, standard errors "
            "clustered by sentence) of 'this word's predicted tag differs from its gold tag' on the word's extra "
            "pieces (pieces - 1) with these covariates: entity type of the gold entity the word is in (one 0/1 "
            "column per type; outside = reference), position_I (inside an entity but not its first word), "
            "log_train_freq (log of the word form's count in the --train-dataset split, 0 when unseen) and "
            "seen_in_train (0/1), length_chars (characters), and lang_<L> (0/1 per language) when the words come "
            "from several languages. Covariates that are constant over the words are dropped and said so. "
            "Prints the odds ratio per extra piece with its CI and p-value, the same without covariates, the "
            "odds ratios of 2, 3 and 4+ pieces against 1 (adjusted), the partial correlation of pieces and error "
            "given the covariates, and the error rate by pieces within training-frequency bins (unseen, 1-9, "
            "10-99, 100+). Without --train-dataset, frequency is not controlled. "
            "Example: tokstudy attribute -d conll2003:test --train-dataset conll2003:train "
            "-t sp32k=runs/tok/sp-32000 -p preds.tsv --json attribution.json --figure attribution"
        ),
    )
    add_input_arguments(p)
    p.add_argument(
        "--predictions",
        "-p",
        action="append",
        default=[],
        required=True,
        metavar="FILE",
        help="predictions file (repeat for several models)",
    )
    p.add_argument(
        "--predictions-dataset",
        default=None,
        metavar="LABEL",
        help="which dataset the predictions are for, as the table names it (name:split), when several are given",
    )
    p.add_argument(
        "--train-dataset",
        action="append",
        default=[],
        metavar="SPEC",
        help="the fine-tuning training split the word frequencies are counted on (repeat to pool), "
        "as a dataset spec: conll2003:train, or a file path",
    )
    p.add_argument(
        "--no-check-gold",
        action="store_true",
        help="use the file's gold tags even where they differ from the dataset's",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    add_output_arguments(p, json="also write every figure as JSON", csv="also write the odds ratios as CSV")
    p.add_argument(
        "--figure",
        default=None,
        type=output_stem,
        metavar="STEM",
        help="also draw the odds ratios to STEM.png and STEM.svg",
    )
    p.add_argument(
        "--no-fit-process",
        action="store_true",
        help="fit in this process (by default a second process, started at once, imports statsmodels while "
        "this one reads the data, then fits; the results are identical)",
    )
    p.set_defaults(func=run)


def compute(table, args, fitter=None) -> list:
    """Every (predictions file, tokenizer) attribution of the parsed arguments.

    ``fitter`` fits each design (default: in process; see :mod:`tokstudy.analysis.model_errors.fit_worker`)."""
    counts, label = None, None
    if args.train_dataset:
        train = load_requested(datasets=train_request(args)).datasets
        counts, label = word_counts(train), ", ".join(args.train_dataset)
    out = []
    for path in args.predictions:
        aligned = align_predictions(
            table, read_predictions(path), dataset=args.predictions_dataset, check_gold=not args.no_check_gold
        )
        for tok in table.tokenizer_names:
            out.append(
                attribute_errors(
                    table, aligned, tok, train=counts, train_label=label, confidence=args.confidence, fitter=fitter
                )
            )
    return out


def run(args) -> int:

    # first: the child imports statsmodels on the other core while this process reads
    with FitWorker(start=not args.no_fit_process) as worker:
        table, repairs = table_from_args(args)
        res = compute(table, args, fitter=worker.fit)

    table = AttributionTable.of(res)
    print(ra.attribution_section(table.rows, table.cells))
    with staged_outputs() as out:
        if args.json:
            # attribution.json's tables, with what lenient reading repaired beside them
            data = table.to_json() | {"repairs": RepairsTable.of(repairs).to_json()}
            rt.write_json(data, out.file(args.json))
        if args.csv:
            rt.write_csv([r.to_json() for r in table.rows], out.file(args.csv))
        if args.figure:
            figures.plot_odds_ratios(table.rows, out.stem(args.figure))
    print_written(out, first="\n")
    return 0
