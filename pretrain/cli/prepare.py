"""``pretrain prepare``: raw text -> ALBERT examples in a store (thin over :func:`pretrain.data.prepare.prepare`)."""

from __future__ import annotations

import argparse


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
    p.add_argument(
        "--input",
        action="append",
        dest="inputs",
        metavar="PATH_OR_CORPUS",
        help="raw-text file, folder, or corpus name such as raw_text_large or raw_text_large/en (repeatable)",
    )
    p.add_argument("--tokenizer", help="tokenizer directory holding spiece.model (or the .model file)")
    p.add_argument("--output", help="store directory to write")
    p.add_argument("--seed", type=int)
    p.add_argument("--task", choices=["sop", "nsp"])
    p.add_argument("--max-seq-length", type=int)
    p.add_argument("--max-predictions", type=int)
    p.add_argument("--max-examples", type=int, help="stop after N examples (quick runs)")
    p.add_argument("--force", action="store_true", help="rebuild even if an identical store exists")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace):
    from pretrain.data.config import PrepareConfig

    overrides = {
        "inputs": args.inputs,
        "tokenizer": args.tokenizer,
        "output": args.output,
        "seed": args.seed,
        "task": args.task,
        "max_seq_length": args.max_seq_length,
        "max_predictions": args.max_predictions,
        "max_examples": args.max_examples,
    }
    if args.config:
        return PrepareConfig.from_yaml(args.config, **overrides)
    return PrepareConfig(**{k: v for k, v in overrides.items() if v is not None})


def run(args: argparse.Namespace) -> int:
    from pretrain.data.prepare import prepare

    result = prepare(config_from_args(args), progress=args.progress, force=args.force)
    state = (
        "reused" if result.reused else f"written in {result.seconds:.1f}s ({result.tokens_per_second:,.0f} tokens/s)"
    )
    print(f"{result.path}: {result.num_examples} examples, {result.tokens} tokens, {state}")
    return 0
