"""``pretrain compare``: Tables 1-2 style results (mean ± std, Welch's t-test marks) from finished runs."""

from __future__ import annotations

import argparse


def register(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="tables of several models' fine-tuning runs: mean ± std over seeds, * for p < 0.05 (Welch)",
        description="Read the run.json of each finished `pretrain finetune` run and write results.md, "
        "results.csv and results.json: one table per metric (F1, accuracy), datasets as rows, models as columns.",
        epilog=(
            "example: pretrain compare runs/32k/conll2003 runs/64k/conll2003 runs/32k/snips runs/64k/snips "
            "--out tables/"
        ),
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="output directories of `pretrain finetune`")
    p.add_argument("--out", required=True, help="directory for results.md/.csv/.json")
    p.add_argument("--reference", help="model name the others are tested against (default: the first run's model)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # deferred: the results tables (numpy, scipy via welch), not for pretrain --help
    from pretrain.finetune.results import compare_runs, to_markdown

    tables = compare_runs(args.runs, args.out, reference=args.reference)
    print(to_markdown(tables))
    print(f"wrote {args.out}/results.md, results.csv, results.json")
    return 0
