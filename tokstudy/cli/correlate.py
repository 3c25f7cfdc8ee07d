"""``tokstudy correlate``: is a word's segmentation correlated with the model mislabelling it?"""

from __future__ import annotations

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.correlation import correlate_errors
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.cli.arguments import (
    add_bootstrap_arguments,
    add_input_arguments,
    add_output_arguments,
    add_predictions_arguments,
    bootstrap_settings,
    print_written,
    staged_outputs,
    table_from_args,
    write_repairs_beside,
)
from tokstudy.report import tables as rt


def register(sub) -> None:
    p = sub.add_parser(
        "correlate",
        help="Pearson/Spearman correlation between a word's pieces and the model's errors on it",
        description=(
            "Read per-word predictions (word<TAB>gold<TAB>pred lines as `pretrain evaluate` writes them, or "
            "conlleval 'word ... gold pred' lines), align them word by word to the dataset, and print, for each "
            "tokenizer: Pearson r with its p-value and bootstrap CI, Spearman's rho, over all words and over NE "
            "words; the error rate for words of 1, 2, 3, 4 and 5+ pieces; and the share of gold entities found "
            "exactly, by their maximum number of pieces. "
            "Example: tokstudy correlate -d conll2003:test -t runs/tok/sp-32000 --predictions preds.tsv"
        ),
    )
    add_input_arguments(p)
    add_predictions_arguments(
        p,
        required=True,
        help="predictions file (repeat for several models)",
        dataset_help="which dataset the predictions are for, as the table names it (name:split), "
        "when several are given",
    )
    p.add_argument(
        "--measure",
        default="n_pieces",
        choices=("n_pieces", "extra_pieces", "continued"),
        help="segmentation measure correlated with errors: pieces, pieces - 1, or 2+ pieces (default n_pieces)",
    )
    p.add_argument(
        "--no-check-gold",
        action="store_true",
        help="use the file's gold tags even where they differ from the dataset's",
    )
    add_bootstrap_arguments(p)
    add_output_arguments(
        p,
        json="also write every figure as JSON (a list, one entry per model and tokenizer); what --lenient "
        "repaired, if anything, goes beside it in FILE.repairs.json",
        csv="also write the correlations as CSV",
    )
    p.set_defaults(func=run)


def compute(table, args) -> tuple[list, list[str]]:
    """The correlations, and one line per predictions file that covers only a declared subset of its split."""
    out, notes = [], []
    for path in args.predictions:
        aligned = align_predictions(
            table, read_predictions(path), dataset=args.predictions_dataset, check_gold=not args.no_check_gold
        )
        if aligned.subset:
            notes.append(
                f"{path} ({aligned.model}) covers the {aligned.subset} of {aligned.dataset}: "
                "every figure for this model is over those sentences only"
            )
        for tok in table.tokenizer_names:
            out.append(correlate_errors(table, aligned, tok, measure=args.measure, bootstrap=bootstrap_settings(args)))
    return out, notes


def run(args) -> int:

    table, repairs = table_from_args(args)
    res, notes = compute(table, args)
    for note in notes:
        print(f"Note: {note}\n")
    print(rt.correlation_markdown(res))
    print("\nError rate by number of pieces\n")
    print(rt.pieces_markdown(res))
    print("\n" + rt.policy_note(res))
    with staged_outputs() as out:
        if args.json:
            rt.write_json(res, out.file(args.json))
            write_repairs_beside(out, args.json, repairs)
        if args.csv:
            rt.write_csv(rt.correlation_rows(res), out.file(args.csv))
    print_written(out, first="\n")
    return 0
