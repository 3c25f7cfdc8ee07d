"""``pretrain evaluate``: score a token-classification model on a dataset and write per-word predictions.

A model saved by ``pretrain finetune`` (it holds ``finetune.json``) is decoded as its run says; any other
Hugging Face token-classification model (a directory or a hub name) goes through
:func:`pretrain.finetune.external.evaluate_external`, its labels mapped onto the dataset's tags.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tokstudy.errors import UsageError
from tokstudy.fileio import atomic_write_text

#: options that say how a model fine-tuned elsewhere is read; a model of ours decodes as its finetune.json says
_EXTERNAL_ONLY = ("label_map", "aggregate", "viterbi", "max_length")


def register(sub) -> None:
    p = sub.add_parser(
        "evaluate",
        help="score a token-classification model (ours or any Hugging Face one) on a dataset; write predictions "
        "for `tokstudy correlate`",
        description="Load a model saved by `pretrain finetune`, or any Hugging Face token-classification model "
        "(a directory written by save_pretrained, or a hub name read from the Hugging Face cache), predict a "
        "dataset, print seqeval F1 (default and strict IOB2 mode) or accuracy as JSON, and optionally write "
        "per-word and per-piece predictions. Another model's labels are mapped onto the dataset's tags by name "
        "(the mapping is printed on stderr and written into the predictions files).",
        epilog="example: pretrain evaluate --model runs/c03/seed-1/model --dataset conll2003 --split test "
        "--predictions c03.test.tsv; pretrain evaluate --model dslim/bert-base-NER --dataset conll2003:test "
        "--predictions dslim.test.tsv --piece-predictions dslim.test.pieces.tsv",
    )
    p.add_argument("--model", required=True, help="model directory or Hugging Face hub name (owner/name)")
    p.add_argument(
        "--dataset",
        required=True,
        help="registry name (conll2003, with --split), registry spec (conll2003:test, wikiann:ru:test) or file",
    )
    p.add_argument("--language", help="language for multilingual corpora")
    p.add_argument("--split", default="test", help="split of a bare registry name (default test)")
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
    external = p.add_argument_group("models not saved by `pretrain finetune`")
    external.add_argument(
        "--label-map", help="YAML, JSON or TSV file: model label or type -> dataset type (e.g. GPE: LOC)"
    )
    external.add_argument(
        "--aggregate",
        choices=["first", "average", "max", "majority"],
        help="how a word's tag comes from its pieces (default first, as models are trained)",
    )
    external.add_argument(
        "--viterbi",
        nargs="?",
        const="train",
        metavar="TRAIN",
        help="decode each sentence's best tag sequence under the training split's tag bigrams (a registry "
        "dataset's own train split; a dataset file needs its training file here)",
    )
    external.add_argument("--max-length", type=int, help="pieces per window (default: what the model takes)")
    external.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # deferred: the evaluation (numpy, the analysis package), not for pretrain --help
    from pretrain.finetune.modeling import FINETUNE_META

    ds = _dataset(args.dataset, args)
    if (Path(args.model) / FINETUNE_META).is_file():
        metrics = _evaluate_ours(args, ds)
    else:
        metrics = _evaluate_external(args, ds)
    text = json.dumps(metrics, indent=2)
    if args.metrics:
        atomic_write_text(args.metrics, text + "\n")
    print(text)
    return 0


def _evaluate_ours(args: argparse.Namespace, ds) -> dict:
    # deferred: the evaluation (numpy, the analysis package), not for pretrain --help
    from pretrain.finetune.evaluation import evaluate_finetuned

    given = [f"--{name.replace('_', '-')}" for name in _EXTERNAL_ONLY if getattr(args, name) is not None]
    if given:
        raise UsageError(
            f"{' '.join(given)}: for models not saved by `pretrain finetune`; {args.model} decodes as its "
            "finetune.json says"
        )
    return evaluate_finetuned(
        args.model,
        ds,
        predictions=args.predictions,
        piece_predictions=args.piece_predictions,
        unseen_labels=args.unseen_labels,
        batch_size=args.batch_size,
        device=args.device,
    )


def _evaluate_external(args: argparse.Namespace, ds) -> dict:
    # deferred: the evaluation (numpy, the analysis package), not for pretrain --help
    from pretrain.finetune.external import ExternalOptions, evaluate_external
    from pretrain.finetune.label_mapping import read_label_map

    options = ExternalOptions(
        aggregate=args.aggregate or "first",
        viterbi=args.viterbi is not None,
        label_map=read_label_map(args.label_map) if args.label_map else {},
        label_map_source=args.label_map,
        max_length=args.max_length,
        batch_size=args.batch_size,
        device=args.device,
        unseen_labels=args.unseen_labels,
        progress=not args.no_progress,
    )
    train = _training_split(args) if args.viterbi is not None else None
    result = evaluate_external(
        args.model,
        ds,
        options=options,
        train=train,
        predictions=args.predictions,
        piece_predictions=args.piece_predictions,
    )
    m = result.mapping
    print(f"pretrain evaluate: {args.model} labels -> dataset tags: {', '.join(m.pairs())}", file=sys.stderr)
    if m.unmapped:
        words = result.metrics["n_unmapped_words"]
        print(f"pretrain evaluate: no dataset type, read as O: {' '.join(m.unmapped)} ({words} words)", file=sys.stderr)
    return result.metrics


def _dataset(spec: str, args: argparse.Namespace):
    """A bare registry name with ``--split``, else a dataset spec or file."""
    # deferred: the readers (numpy, the data package), not for pretrain --help
    from tokstudy.data.registry import list_datasets, load_dataset
    from tokstudy.inputs.datasets import load_dataset_spec

    if spec in list_datasets() and not Path(spec).exists():
        return load_dataset(spec, args.split, language=args.language, data_dir=args.data_dir)
    return load_dataset_spec(spec, data_dir=args.data_dir, language=args.language)


def _training_split(args: argparse.Namespace):
    """The split ``--viterbi`` reads tag bigrams from: its value, or the registry dataset's train split."""
    # deferred: the readers (numpy, the data package), not for pretrain --help
    from tokstudy.data.names import parse_dataset_name
    from tokstudy.data.registry import list_datasets, load_dataset

    if args.viterbi != "train":
        return _dataset(args.viterbi, args)
    name, language, _ = parse_dataset_name(args.dataset, language=args.language)
    if name not in list_datasets() or Path(args.dataset).exists():
        raise UsageError(
            f"--viterbi: {args.dataset} is a file, not a registry dataset; give its training split: "
            "--viterbi TRAIN_FILE"
        )
    return load_dataset(name, "train", language=language, data_dir=args.data_dir)
