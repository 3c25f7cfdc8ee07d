"""Benchmark: byte-level BPE segmentation in context (``" " + word``) vs each word alone.

Trains an 8k ``ByteLevelBPETokenizer`` (GPT-2/RoBERTa family) and an 8k cased WordPiece on
``raw_text/en``, then on the 30,289 distinct words of CoNLL-2003 train+dev+test:

* time of one ``HFTokenizerSegmenter.segment(distinct words)`` call, in context (the
  tokstudy default, each word handed over as ``" " + word``) and word alone (the old,
  wrong behaviour), interleaved ``--repeat`` times;
* what the difference means on CoNLL-2003 test: the share of entity words with two or
  more pieces and pieces per word, byte-level in context / alone, and the WordPiece.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_in_context.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import statistics
import sys
import time
import warnings
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)
    warnings.simplefilter("ignore")
    import numpy as np
    from tokenizers import BertWordPieceTokenizer, ByteLevelBPETokenizer

    from tokstudy.analysis.table import segmentation_table
    from tokstudy.data.registry import load_dataset
    from tokstudy.datalocation import corpus_dir
    from tokstudy.tokenization.hf import HFTokenizerSegmenter

    with gzip.open(corpus_dir("raw_text") / "en.txt.gz", "rt", encoding="utf-8") as fh:
        lines = [l.strip() for l in fh]
    bl = ByteLevelBPETokenizer()
    bl.train_from_iterator(lines, vocab_size=8000, show_progress=False)
    wp = BertWordPieceTokenizer(lowercase=False)
    wp.train_from_iterator(lines, vocab_size=8000, show_progress=False)
    splits = {sp: load_dataset("conll2003", sp) for sp in ("train", "dev", "test")}
    words = list(dict.fromkeys(w for ds in splits.values() for s in ds for w in s.words))
    new = HFTokenizerSegmenter(bl._tokenizer, name="bbpe-8k in context")
    old = HFTokenizerSegmenter(bl._tokenizer, name="bbpe-8k word alone (old)")
    old.context = dataclasses.replace(old.context, prefix="")
    times = {new.name: [], old.name: []}
    for _ in range(args.repeat):
        for seg in (new, old):
            t = time.perf_counter()
            seg.segment(words)
            times[seg.name].append(time.perf_counter() - t)
    print(f"{len(lines):,} raw_text/en lines; {len(words):,} distinct CoNLL-2003 words; repeat {args.repeat}\n")
    print("| segment(distinct words) | best s | median s |\n|---|---:|---:|")
    for name, v in times.items():
        print(f"| {name} | {min(v):.3f} | {statistics.median(v):.3f} |")
    wps = HFTokenizerSegmenter(wp._tokenizer, name="wordpiece-8k")
    t = segmentation_table([splits["test"]], [new, old, wps], progress=False)
    print("\n| CoNLL-2003 test | entity words with >= 2 pieces | all words with >= 2 pieces | pieces per word |")
    print("|---|---:|---:|---:|")
    for name in t.tokenizer_names:
        p = t.n_pieces(name)
        print(f"| {name} | {np.mean(p[t.inside] >= 2):.1%} | {np.mean(p >= 2):.1%} | {p.mean():.3f} |")


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
