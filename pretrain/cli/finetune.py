"""``pretrain finetune``: fine-tune a model on a dataset over N seeds.

Thin over :func:`pretrain.finetune.run.finetune`.
"""

from __future__ import annotations

import argparse

# command-line flag -> FinetuneConfig field (None values keep the config file's / default value)
_FLAGS = {
    "model": "model",
    "task": "task",
    "dataset": "dataset",
    "language": "language",
    "data_dir": "data_dir",
    "model_name": "model_name",
    "seeds": "n_seeds",
    "first_seed": "first_seed",
    "epochs": "epochs",
    "batch_size": "batch_size",
    "lr": "learning_rate",
    "patience": "patience",
    "max_length": "max_length",
    "stride": "stride",
    "max_train_sentences": "max_train_sentences",
    "max_eval_sentences": "max_eval_sentences",
    "unseen_labels": "unseen_labels",
    "device": "device",
    "evals_per_epoch": "evals_per_epoch",
    "dropout": "dropout",
    "token_dropout": "token_dropout",
    "decode": "decode",
    "decode_prior_scale": "decode_prior_scale",
}


def register(sub) -> None:
    p = sub.add_parser(
        "finetune",
        help="fine-tune a Hugging Face encoder for NER/slot filling or sentence classification over N seeds",
        description="Fine-tune a local Hugging Face encoder directory (e.g. from `pretrain export`) on a dataset, "
        "once per seed, and write per-seed scores, per-word predictions (read by `tokstudy correlate`) and "
        "OUT/run.json with mean ± std. Finished seeds with the same settings are reused on re-runs.",
        epilog="example: pretrain finetune --model models/albert-32k --task ner --dataset conll2003 --seeds 3 "
        "--output runs/albert-32k/conll2003",
    )
    p.add_argument(
        "--config",
        help="YAML file of FinetuneConfig fields (e.g. pretrain/configs/finetune_ner.yaml); flags override it",
    )
    p.add_argument("--model", help="model directory (config.json, weights, tokenizer files)")
    p.add_argument(
        "--task",
        choices=["ner", "classification"],
        help="ner: token labels (NER, slots); classification: one label per sentence",
    )
    p.add_argument("--dataset", help="registry name: conll2003, conll2002_es, wikiann, snips, atis, sst2, ...")
    p.add_argument("--language", help="language for multilingual corpora (wikiann)")
    p.add_argument("--data-dir", help="folder holding the corpora (default: $TOKSTUDY_DATA)")
    p.add_argument("--model-name", help="column name in results tables (default: the model directory's name)")
    p.add_argument("--seeds", type=int, help="number of seeds (default 10, as in the paper)")
    p.add_argument("--first-seed", type=int, help="first seed (default 1)")
    p.add_argument("--epochs", type=int)
    p.add_argument("--batch-size", type=int)
    p.add_argument("--lr", type=float, help="peak learning rate")
    p.add_argument("--patience", type=int, help="early stopping: dev evaluations without improvement (0: off)")
    p.add_argument("--evals-per-epoch", type=int)
    p.add_argument("--max-length", type=int, help="pieces per window incl. [CLS]/[SEP]; longer sentences are windowed")
    p.add_argument("--stride", type=int, help="left-context pieces carried into the next window")
    p.add_argument("--max-train-sentences", type=int, help="train on the first N sentences only (quick runs)")
    p.add_argument("--max-eval-sentences", type=int, help="evaluate on the first N dev/test sentences only")
    p.add_argument(
        "--unseen-labels",
        choices=["error", "keep", "map_o"],
        help="dev/test labels never seen in train: error (default), keep as misses, or map gold to O",
    )
    p.add_argument(
        "--label-all-pieces", action="store_true", default=None, help="train on every piece, not only the first"
    )
    p.add_argument("--dropout", type=float, help="fine-tuning dropout (default: the model's own, 0 for our exports)")
    p.add_argument("--token-dropout", type=float, help="word dropout: training pieces replaced by <unk> at this rate")
    p.add_argument(
        "--decode",
        choices=["argmax", "viterbi"],
        help="token tasks: each word's best label (default), or each sentence's best label sequence under the "
        "training split's label bigrams",
    )
    p.add_argument(
        "--decode-prior-scale",
        type=float,
        help="with --decode viterbi: how much of the training label prior to divide out (0 none, 1 hybrid)",
    )
    p.add_argument("--device", help="auto (default), cpu, cuda, cuda:N")
    p.add_argument(
        "--no-save-models",
        dest="save_models",
        action="store_false",
        default=None,
        help="do not keep the fine-tuned models (saves disk; `pretrain evaluate` then cannot be used)",
    )
    p.add_argument("--no-resume", dest="resume", action="store_false", help="retrain seeds even if finished")
    p.add_argument("--no-progress", dest="progress", action="store_false", default=None)
    p.add_argument("--output", required=True, help="run directory (seed-K/ folders and run.json)")
    p.set_defaults(func=run, resume=True)


def config_from_args(args: argparse.Namespace):
    from pretrain.finetune.config import FinetuneConfig

    values = {field: getattr(args, flag) for flag, field in _FLAGS.items()}
    for field in ("label_all_pieces", "save_models", "progress"):
        values[field] = getattr(args, field)
    if args.config:
        return FinetuneConfig.from_yaml(args.config, **values)
    missing = [f"--{f}" for f in ("model", "task", "dataset") if not values[f]]
    if missing:
        raise ValueError(f"missing {' '.join(missing)} (or give --config FILE)")
    return FinetuneConfig.from_dict({k: v for k, v in values.items() if v is not None})


def run(args: argparse.Namespace) -> int:
    from pretrain.finetune.run import finetune

    config = config_from_args(args)
    result = finetune(config, args.output, resume=args.resume)
    for note in result.seeds[0].get("notes", []):
        print(f"note: {note}")
    summary = ", ".join(f"{m} {s.format()}" for m, s in result.summary.items())
    print(f"{config.display_name()} on {config.dataset} ({len(result.seeds)} seeds): {summary}")
    print(f"wrote {result.output_dir / 'run.json'}")
    return 0
