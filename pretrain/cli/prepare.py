"""``pretrain prepare``: raw text -> ALBERT examples in a store (thin over :func:`pretrain.data.prepare.prepare`)."""

from __future__ import annotations

import argparse

from pretrain.cli.fields import add_config_flags, config_overrides
from pretrain.data.config import PrepareConfig


def register(sub) -> None:
    p = sub.add_parser(
        "prepare",
        help="turn raw documents into ALBERT pre-training examples (SOP/NSP, n-gram masking) in a reusable store",
        description="Tokenize raw documents (one sentence or paragraph per line, blank line between documents, "
        ".gz allowed, several languages with temperature sampling) with a trained SentencePiece tokenizer, build "
        "[CLS] A [SEP] B [SEP] examples with sentence-order (or next-sentence) labels and whole-word n-gram "
        "masking, and write them to a memory-mapped store that `pretrain train` reads. A store made from the "
        "same config, tokenizer and inputs is reused, not recomputed.",
        epilog="example: pretrain prepare --config pretrain/configs/prepare_tiny.yaml "
        "--tokenizer runs/tokenizers/sp-unigram-8000 --output runs/examples/tiny",
    )
    p.add_argument(
        "--config", help="YAML file of PrepareConfig fields (pretrain/configs/prepare_*.yaml); flags override it"
    )
    p.add_argument("--force", action="store_true", help="rebuild even if an identical store exists")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    add_config_flags(
        p,
        PrepareConfig,
        title="store settings (PrepareConfig)",
        description="Each flag given replaces the --config file's value; the others keep it.",
        aliases={"inputs": ["--input"]},
    )
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace) -> PrepareConfig:
    overrides = config_overrides(args, PrepareConfig)
    if args.config:
        return PrepareConfig.from_yaml(args.config, **overrides)
    return PrepareConfig(**overrides)


def run(args: argparse.Namespace) -> int:
    # deferred: the preparation (numpy, sentencepiece), not for pretrain --help
    from pretrain.data.prepare import prepare

    result = prepare(config_from_args(args), progress=args.progress, force=args.force)
    state = (
        "reused" if result.reused else f"written in {result.seconds:.1f}s ({result.tokens_per_second:,.0f} tokens/s)"
    )
    print(f"{result.path}: {result.num_examples} examples, {result.tokens} tokens, {state}")
    return 0
