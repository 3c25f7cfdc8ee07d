"""``tokstudy stats``: Table 4 (additional segmentation of NE vs non-NE words) and the other figures."""

from __future__ import annotations

GROUPINGS = ("entity_type", "position", "language", "dataset")


def register(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="additional segmentation of NE vs non-NE words (Table 4), fertility, continued words, ...",
        description=(
            "Print, for each tokenizer, the additional segmentation % (pieces / words - 1) of words inside "
            "named entities, outside them and overall (the mALBERT paper's Table 4), with bootstrap confidence "
            "intervals over sentences; then fertility, % of continued words (2+ pieces), % of unknown pieces and "
            "pieces per continued word; the breakdown by entity type, B/I position, language and dataset; and the "
            "intrinsic metrics per tokenizer and group (NE / non-NE / all, language): chars_per_piece, "
            "bytes_per_piece, shannon_entropy, renyi_efficiency (order --renyi-alpha) and vocab_utilization. "
            "Example: tokstudy stats -d conll2003:test -t runs/tok/sp-32000 -t runs/tok/sp-64000 --json stats.json"
        ),
    )
    from tokstudy.cli.arguments import add_bootstrap_arguments, add_input_arguments

    add_input_arguments(p)
    add_bootstrap_arguments(p)
    p.add_argument(
        "--by",
        action="append",
        choices=GROUPINGS,
        default=None,
        help=(
            "breakdowns to print (repeat; default: entity_type and position, "
            "plus language/dataset when there are several)"
        ),
    )
    p.add_argument(
        "--renyi-alpha",
        type=float,
        default=2.5,
        metavar="ALPHA",
        help="order of the Rényi entropy behind renyi_efficiency (default 2.5, as Zouhar et al. 2023)",
    )
    p.add_argument("--json", default=None, metavar="FILE", help="also write every figure as JSON")
    p.add_argument("--csv", default=None, metavar="FILE", help="also write Table 4 as CSV")
    p.set_defaults(func=run)


def compute(table, args):
    """All the stats of one table, bootstrapped in one pass (shared with ``tokstudy report``)."""
    from tokstudy.analysis.stats import table_statistics
    from tokstudy.cli.arguments import bootstrap_kwargs

    return table_statistics(
        table, groupings=args.by, renyi_alpha=getattr(args, "renyi_alpha", 2.5), **bootstrap_kwargs(args)
    )


def run(args) -> int:
    from tokstudy.cli.arguments import table_from_args
    from tokstudy.report import tables as rt

    table = table_from_args(args)
    res = compute(table, args)
    print(
        f"{len(table)} words, {table.n_sentences} sentences, {table.n_entities} entities "
        f"in {', '.join(table.datasets)}\n"
    )
    print(rt.table4_markdown(res.table4))
    print("\n" + rt.summary_markdown(res.summary))
    for b, grouped in res.by.items():
        print(f"\nAdditional segmentation % by {b}\n")
        print(rt.grouped_markdown(grouped))
    print("\nIntrinsic metrics (compression, unigram entropy of the pieces, vocabulary use)\n")
    print(rt.intrinsic_markdown(res.intrinsic))
    if args.json:
        rt.write_json(
            {
                "datasets": list(table.datasets),
                "table4": res.table4,
                "summary": res.summary,
                "by": res.by,
                "intrinsic": res.intrinsic,
                "repairs": getattr(args, "repairs", []),
            },
            args.json,
        )
        print(f"\nwrote {args.json}")
    if args.csv:
        rt.write_csv(rt.table4_rows(res.table4), args.csv)
        print(f"wrote {args.csv}")
    return 0
