"""``pretrain evaluate``: score a fine-tuned model on a dataset split and write per-word predictions."""

from __future__ import annotations

import argparse
import json

from tokstudy.fileio import atomic_write_text


def register(sub) -> None:
    p = sub.add_parser(
        "evaluate",
        help=(
            "score a fine-tuned model (OUT/seed-K/model) on a dataset split; write predictions for `tokstudy correlate`"
        ),
        description="Load a model saved by `pretrain finetune`, predict a dataset split, print seqeval F1 "
        "(default and strict IOB2 mode) or accuracy as JSON, and optionally write per-word predictions.",
        epilog="example: pretrain evaluate --model runs/c03/seed-1/model --dataset conll2003 --split test "
        "--predictions c03.test.tsv",
    )
    p.add_argument("--model", required=True, help="fine-tuned model directory (holds finetune.json)")
    p.add_argument("--dataset", required=True, help="registry name (conll2003, snips, ...)")
    p.add_argument("--language", help="language for multilingual corpora")
    p.add_argument("--split", default="test", help="split to score (default test)")
    p.add_argument("--data-dir", help="folder holding the corpora (default: $TOKSTUDY_DATA)")
    p.add_argument("--predictions", help="write per-word predictions here (tokstudy format)")
    p.add_argument(
        "--piece-predictions",
        help="token tasks: also write every piece's label and probabilities here (read by `tokstudy pieces`)",
    )
    p.add_argument("--metrics", help="also write the metrics JSON here")
    p.add_argument("--unseen-labels", choices=["error", "keep", "map_o"], default="error")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--device", default="auto")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # deferred: the evaluation (numpy, the analysis package), not for pretrain --help
    from pretrain.finetune.evaluation import evaluate_finetuned
    from tokstudy.data.registry import load_dataset

    ds = load_dataset(args.dataset, args.split, language=args.language, data_dir=args.data_dir)
    metrics = evaluate_finetuned(
        args.model,
        ds,
        predictions=args.predictions,
        piece_predictions=args.piece_predictions,
        unseen_labels=args.unseen_labels,
        batch_size=args.batch_size,
        device=args.device,
    )
    text = json.dumps(metrics, indent=2)
    if args.metrics:
        atomic_write_text(args.metrics, text + "\n")
    print(text)
    return 0
