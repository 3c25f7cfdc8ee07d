"""``pretrain finetune``: fine-tune a model on a dataset over N seeds.

Thin over :func:`pretrain.finetune.run.finetune`.
"""

from __future__ import annotations

import argparse

from pretrain.cli.fields import add_config_flags, config_overrides
from pretrain.finetune.config import FinetuneConfig


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
    p.add_argument("--no-resume", dest="resume", action="store_false", help="retrain seeds even if finished")
    p.add_argument("--output", required=True, help="run directory (seed-K/ folders and run.json)")
    add_config_flags(
        p,
        FinetuneConfig,
        title="fine-tuning settings (FinetuneConfig)",
        description="Each flag given replaces the --config file's value; the others keep it. Without --config, "
        "--model, --task and --dataset are required.",
        aliases={"n_seeds": ["--seeds"], "learning_rate": ["--lr"]},
        exclude=["extra"],
    )
    p.set_defaults(func=run, resume=True)


def config_from_args(args: argparse.Namespace) -> FinetuneConfig:
    values = config_overrides(args, FinetuneConfig)
    if args.config:
        return FinetuneConfig.from_yaml(args.config, **values)
    missing = [f"--{f}" for f in ("model", "task", "dataset") if not values.get(f)]
    if missing:
        raise ValueError(f"missing {' '.join(missing)} (or give --config FILE)")
    return FinetuneConfig.from_dict(values)


def run(args: argparse.Namespace) -> int:
    # deferred: fine-tuning (numpy, the analysis package), not for pretrain --help
    from pretrain.finetune.run import finetune

    config = config_from_args(args)
    result = finetune(config, args.output, resume=args.resume)
    for note in result.seeds[0].get("notes", []):
        print(f"note: {note}")
    summary = ", ".join(f"{m} {s.format()}" for m, s in result.summary.items())
    print(f"{config.display_name()} on {config.dataset} ({len(result.seeds)} seeds): {summary}")
    print(f"wrote {result.output_dir / 'run.json'}")
    return 0
