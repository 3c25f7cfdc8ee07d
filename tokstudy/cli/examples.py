"""``tokstudy examples``: Table-3-style sentences with their pieces, gold labels and predictions."""

from __future__ import annotations

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.cli.arguments import (
    add_input_arguments,
    add_output_arguments,
    add_predictions_arguments,
    add_sentence_argument,
    check_sentence_specs,
    print_written,
    resolve_sentences,
    staged_outputs,
    table_from_args,
    write_repairs_beside,
)
from tokstudy.inputs.request import check_files
from tokstudy.report import tables as rt
from tokstudy.report.table3 import example_rows, examples, examples_markdown, select_sentences


def register(sub) -> None:
    p = sub.add_parser(
        "examples",
        help="show sentences word by word: pieces under each tokenizer, gold label, each model's prediction",
        description=(
            "Print sentences as in the mALBERT paper's Table 3: each word, its pieces under each tokenizer "
            "(joined with ' · '), its gold label and, with --predictions, each model's predicted label (✗ where "
            "wrong). Choose sentences with --sentence, or let tokstudy pick those whose entities are split most "
            "differently across tokenizers. "
            "Example: tokstudy examples -d conll2003:test -t sp32k=a/ -t sp128k=b/ --sentence 12 -p preds.tsv"
        ),
    )
    add_input_arguments(p)
    add_sentence_argument(
        p,
        help="sentence id within its dataset (repeat); prefix DATASET# (e.g. conll2003:test#12) with several datasets",
    )
    p.add_argument(
        "--auto", type=int, default=3, metavar="N", help="without --sentence: how many sentences to pick (default 3)"
    )
    add_predictions_arguments(p)
    add_output_arguments(
        p,
        csv="also write the rows as CSV",
        json="also write the examples as JSON (a list, one entry per sentence); what --lenient repaired, if "
        "anything, goes beside it in FILE.repairs.json",
    )
    p.set_defaults(func=run)


def run(args) -> int:

    check_sentence_specs(args.sentence)
    check_files(args.predictions, "--predictions")
    table, repairs = table_from_args(args)
    sents = resolve_sentences(table, args.sentence) if args.sentence else select_sentences(table, args.auto)
    preds = [align_predictions(table, read_predictions(p), dataset=args.predictions_dataset) for p in args.predictions]
    exs = examples(table, sents, preds)
    print(examples_markdown(exs))
    with staged_outputs() as out:
        if args.csv:
            rt.write_csv(example_rows(exs), out.file(args.csv))
        if args.json:
            rt.write_json(exs, out.file(args.json))
            write_repairs_beside(out, args.json, repairs)
    print_written(out, first="\n")
    return 0
