"""``tokstudy pieces``: do a word's pieces agree on its label, and what each way of labelling words from pieces
costs (entity F1, word errors, the word-level r)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tokstudy.cli.arguments import add_output_arguments, check_outputs
from tokstudy.errors import UsageError


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
            "file. Example: tokstudy pieces runs/c03/seed-1/predictions.test.pieces.tsv --csv pieces.csv"
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
    add_output_arguments(p, csv="also write every figure as CSV", json="also write every result as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    # deferred: the analysis and report packages (numpy), not for --help
    from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
    from tokstudy.analysis.model_errors.piece_predictions import read_piece_predictions
    from tokstudy.report.pieces import pieces_markdown, pieces_rows
    from tokstudy.report.tables import write_csv, write_json

    if args.bootstrap < 0:
        raise UsageError(f"--bootstrap {args.bootstrap}: expected a number of resamples >= 0")
    check_outputs(args, files=("csv", "json"))
    results = []
    for spec in args.piece_predictions:
        path, _, name = spec.partition("=")
        preds = read_piece_predictions(path)
        res = piece_agreement(preds, n_resamples=args.bootstrap, seed=args.seed)
        results.append(dataclasses.replace(res, model=name) if name else res)
        print(f"{path}: {preds.n_words} words, {len(preds.sentences)} sentences, labels {' '.join(preds.labels)}")
    names = [r.model for r in results]
    if len(set(names)) < len(names):
        results = [
            dataclasses.replace(r, model=f"{r.model} ({Path(s.partition('=')[0]).name})")
            for r, s in zip(results, args.piece_predictions)
        ]
    print("\n" + pieces_markdown(results))
    if args.csv:
        print(f"\nwrote {write_csv(pieces_rows(results), args.csv)}")
    if args.json:
        print(f"wrote {write_json(list(results), args.json)}")
    return 0
