"""``tokstudy correlate-protocols``: r of segmentation against errors under every protocol, side by side."""

from __future__ import annotations

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.analysis.model_errors.protocols import correlation_protocols
from tokstudy.analysis.table import tokenizer_columns
from tokstudy.cli.arguments import (
    add_bootstrap_arguments,
    add_input_arguments,
    add_output_arguments,
    add_predictions_arguments,
    bootstrap_settings,
    print_written,
    staged_outputs,
    table_from_args,
    tokenizers_from_args,
)
from tokstudy.errors import UsageError
from tokstudy.report import tables as rt
from tokstudy.report.protocols import protocol_rows, protocols_markdown


def register(sub) -> None:
    p = sub.add_parser(
        "correlate-protocols",
        help="Pearson r of a word's pieces against the model's errors under every protocol (which gives r = 0.44?)",
        description=(
            "Align each model's predictions to the dataset and print Pearson r, with its bootstrap CI, under "
            "every protocol side by side: all words, NE words or gold entities; pieces or pieces - 1; a word "
            "wrong when its tag is wrong or when its entity is missed (seqeval spans); the lone word-boundary "
            "piece counted or dropped (each tokenizer is segmented both ways). Then the protocol nearest the "
            "mALBERT paper's r = 0.44. Give --predictions once per --tokenizer, in the same order (the model "
            "fine-tuned with that tokenizer), or once for all of them. "
            "Example: tokstudy correlate-protocols -d conll2003:test -t sp8k=tok/sp8k -p preds8k.tsv"
        ),
    )
    add_input_arguments(p)
    add_predictions_arguments(
        p,
        required=True,
        help="predictions file of the model fine-tuned with each --tokenizer, in the same order (or one for all)",
        dataset_help="which dataset the predictions are for, as the table names it (name:split), "
        "when several are given",
    )
    add_bootstrap_arguments(p)
    add_output_arguments(
        p,
        json="also write one row per tokenizer, model and protocol as JSON",
        csv="also write those rows as CSV",
        markdown="also write the Markdown printed here to FILE",
    )
    p.set_defaults(func=run)


def pairs(args) -> list[tuple[int, str]]:
    """``(tokenizer index, predictions path)`` pairs; :class:`~tokstudy.errors.UsageError` when the counts
    do not pair (checked before any work)."""
    n_tok, n_pred = len(args.tokenizer), len(args.predictions)
    if args.drop_lone_boundary:
        raise UsageError("--drop-lone-boundary: correlate-protocols counts pieces both ways; leave it out")
    if n_pred == 1:
        return [(i, args.predictions[0]) for i in range(n_tok)]
    if n_pred != n_tok:
        raise UsageError(
            f"{n_pred} --predictions for {n_tok} --tokenizer: give one per tokenizer, in the same order, or one"
        )
    return list(enumerate(args.predictions))


def compute(table, args, paired: list[tuple[int, str]]) -> list:
    """The :class:`~tokstudy.analysis.model_errors.protocols.ProtocolCorrelations` of every pair."""
    names = table.tokenizer_names
    without = tokenizers_from_args(args, count_lone_boundary=False)
    out = []
    for i, path in paired:
        aligned = align_predictions(table, read_predictions(path), dataset=args.predictions_dataset)
        dropped = tokenizer_columns(table, without[i])
        out.append(correlation_protocols(table, aligned, names[i], dropped=dropped, bootstrap=bootstrap_settings(args)))
    return out


def run(args) -> int:

    paired = pairs(args)
    table, _ = table_from_args(args)
    results = compute(table, args, paired)
    text = protocols_markdown(results)
    print(text)
    with staged_outputs() as out:
        if args.markdown:
            out.file(args.markdown).write_text(text + "\n", encoding="utf-8", newline="\n")
        for path, write in ((args.json, rt.write_json), (args.csv, rt.write_csv)):
            if path:
                write(protocol_rows(results), out.file(path))
    print_written(out, first="\n")
    return 0
