#!/usr/bin/env python3
"""Reader throughput (words per second) on the real corpora: CoNLL-2003 train, all of WikiANN, ner_ja.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_readers.py [--repeat 3]

Reports the best of ``--repeat`` runs per corpus (the machine is shared, the minimum is the
least disturbed figure), words, sentences, seconds and words/s. Nothing is asserted: speed
belongs here, not in the tests.
"""

from __future__ import annotations

import argparse
import time

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

from tokstudy.data.corpora import _ner_ja_all
from tokstudy.data.registry import load_dataset

CASES = [
    ("conll2003 train", [("conll2003", "train", None)]),
    (
        "wikiann 6 langs x 3 splits",
        [("wikiann", s, lang) for lang in ("de", "en", "es", "nl", "pl", "ru") for s in ("train", "dev", "test")],
    ),
    ("ner_ja_wikipedia all", [("ner_ja_wikipedia", "all", None)]),
    ("snips train", [("snips", "train", None)]),
]


def measure(parts) -> tuple[int, int, float]:
    # ner_ja_wikipedia's file is parsed once per process for its three splits: each run starts without it
    _ner_ja_all.cache_clear()
    t0 = time.perf_counter()
    words = sentences = 0
    for name, split, lang in parts:
        ds = load_dataset(name, split, language=lang)
        words += ds.n_words
        sentences += len(ds)
    return words, sentences, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(runinfo.describe(), flush=True)
    print("| corpus | sentences | words | best of %d (s) | words/s |" % args.repeat)
    print("|---|---:|---:|---:|---:|")
    for label, parts in CASES:
        runs = [measure(parts) for _ in range(args.repeat)]
        words, sentences, _ = runs[0]
        best = min(r[2] for r in runs)
        print(f"| {label} | {sentences:,} | {words:,} | {best:.2f} | {words / best:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
