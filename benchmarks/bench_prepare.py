"""Throughput and peak memory of ``pretrain prepare`` on the real raw text.

Two runs, each in a fresh process (so peak RSS is the run's own): English only
(``raw_text_large/en``, 5 MB of literature) and multilingual (all 14 languages of
``raw_text_large``, 51 MB, temperature 0.3). A SentencePiece unigram tokenizer with ALBERT's
specials is trained first on a sample of the same text unless ``--tokenizer`` is given.

    TOKSTUDY_DATA=../shared/data OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_prepare.py

Prints a Markdown table (tokens/s, examples, seconds, peak RSS).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def train_tokenizer(out: Path, vocab_size: int) -> Path:
    from tests.fixtures_sentencepiece import train_unigram
    from tokstudy.datalocation import corpus_dir

    root = corpus_dir("raw_text_large")
    lines = []
    for f in sorted(root.glob("*.txt.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            lines += [x.strip() for x in itertools.islice(fh, 1500) if x.strip()]
    out.mkdir(parents=True, exist_ok=True)
    (out / "train.txt").write_text("\n".join(lines), encoding="utf-8")
    train_unigram(
        out / "train.txt",
        out / "spiece",
        vocab_size,
        albert=True,
        character_coverage=0.9995,
        num_threads=2,
        input_sentence_size=200000,
        shuffle_input_sentence=True,
    )
    return out


def one_run(spec: dict) -> dict:
    """Runs in the child process: one prepare, then its own peak RSS."""
    from pretrain.data.config import PrepareConfig
    from pretrain.data.prepare import prepare

    cfg = PrepareConfig(**spec)
    t0 = time.perf_counter()
    result = prepare(cfg, progress=False, force=True)
    wall = time.perf_counter() - t0
    return {
        "examples": result.num_examples,
        "tokens": result.tokens,
        "seconds": round(wall, 2),
        "tokens_per_s": round(result.tokens / wall),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "store_mib": round(sum(p.stat().st_size for p in Path(cfg.output).iterdir()) / 2**20, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", help="tokenizer directory (default: train one, vocabulary --vocab-size)")
    ap.add_argument("--vocab-size", type=int, default=16000)
    ap.add_argument("--max-seq-length", type=int, default=128)
    ap.add_argument("--only", choices=["en", "multi"], help="run one of the two")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:
        print(json.dumps(one_run(json.loads(args._child))))
        return
    print(runinfo.describe(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tok = Path(args.tokenizer) if args.tokenizer else train_tokenizer(tmp / "tok", args.vocab_size)
        max_pred = max(1, round(0.15 * args.max_seq_length + 0.5)) if args.max_seq_length != 128 else 20
        runs = {
            "en": {"inputs": ["raw_text_large/en"]},
            "multi": {"inputs": ["raw_text_large"], "language_alpha": 0.3},
        }
        print("| run | inputs | examples | tokens | seconds | tokens/s | peak RSS (MiB) | store (MiB) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, extra in runs.items():
            if args.only and name != args.only:
                continue
            spec = {
                "tokenizer": str(tok),
                "output": str(tmp / name),
                "max_seq_length": args.max_seq_length,
                "max_predictions": max_pred,
                **extra,
            }
            out = subprocess.run(
                [sys.executable, __file__, "--_child", json.dumps(spec)],
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ},
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"| {name} | {', '.join(extra['inputs'])} | {r['examples']:,} | {r['tokens']:,} | {r['seconds']} | "
                f"{r['tokens_per_s']:,} | {r['peak_rss_mib']} | {r['store_mib']} |",
                flush=True,
            )
    print(runinfo.load_line())


if __name__ == "__main__":
    main()
