"""``tokstudy segment``: write the per-word segmentation table (CSV or Parquet)."""

from __future__ import annotations

from tokstudy.cli.arguments import add_input_arguments, output_file, staged_outputs, table_from_args
from tokstudy.errors import UsageError


def register(sub) -> None:
    p = sub.add_parser(
        "segment",
        help="write one row per word with its pieces under each tokenizer (CSV/Parquet)",
        description=(
            "Segment every word of the given datasets with every given tokenizer and write the per-word "
            "table: dataset, language, split, sentence, word, gold tag, entity type and position, and for each "
            "tokenizer its pieces, number of pieces and unknown pieces. "
            "Example: tokstudy segment -d conll2003:test -t sp32k=runs/tok/sp-32000 --out seg.parquet"
        ),
    )
    add_input_arguments(p)
    p.add_argument(
        "--out",
        "-o",
        required=True,
        type=output_file,
        metavar="FILE",
        help="output file: .parquet, or .csv (pieces joined by spaces)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    out = str(args.out)
    if not out.endswith((".parquet", ".csv")):  # checked before the (long) segmentation
        raise UsageError(f"--out must end in .parquet or .csv, got {out!r}")
    table, _ = table_from_args(args)
    with staged_outputs() as staged:
        (table.to_parquet if out.endswith(".parquet") else table.to_csv)(staged.file(out))
    print(f"wrote {len(table)} words x {len(table.tokenizers)} tokenizer(s) to {out}")
    return 0
