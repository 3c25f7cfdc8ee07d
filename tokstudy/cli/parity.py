"""``tokstudy parity``: how many more pieces each language needs than English for the same paragraphs."""

from __future__ import annotations

from tokstudy.cli.arguments import (
    add_bootstrap_arguments,
    add_input_arguments,
    add_output_arguments,
    add_parallel_text_arguments,
    parity_from_args,
    print_written,
    staged_outputs,
)
from tokstudy.report import tables as rt


def register(sub) -> None:
    p = sub.add_parser(
        "parity",
        help="tokenizer parity and fertility per language on parallel paragraphs (XQuAD)",
        description=(
            "On paragraph-aligned parallel text (default: the xquad_parallel corpus at the data location), "
            "print for each tokenizer and language the pieces needed relative to the reference language "
            "(1.00 = parity) with a bootstrap CI over paragraphs, the fertility (pieces per whitespace word), "
            "and the Gini coefficient of the languages' parities (JSON field gini; 0 = every language costs the same). "
            "Example: tokstudy parity -t runs/tok/sp-32000 --languages en,de,ru,zh"
        ),
    )
    add_input_arguments(p, datasets=False)
    add_parallel_text_arguments(p)
    add_bootstrap_arguments(p)
    add_output_arguments(p, json="also write the results as JSON", csv="also write the results as CSV")
    p.set_defaults(func=run)


def run(args) -> int:

    res = parity_from_args(args)
    print(rt.parity_markdown(res))
    with staged_outputs() as out:
        if args.json:
            rt.write_json(res, out.file(args.json))
        if args.csv:
            rt.write_csv(rt.parity_rows(res), out.file(args.csv))
    print_written(out, first="\n")
    return 0
