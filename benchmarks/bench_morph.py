"""Benchmark: MorphScore (and boundary P / R / F1) over 10,000 words (target: within 2 s).

The gold file is written here: 10,000 distinct words of CoNLL-2003 train (letters only, 4 characters or
more) as a MorphScore CSV whose boundary of interest is before the last two characters (a stand-in for a
suffix: the timing does not depend on where the boundary is). Timed, best of ``--repeat``: reading the
file, segmenting every word with the 32k SentencePiece model of ``bench_stats.py`` (loaded before), and
``morph_scores`` with frequency bands from CoNLL-2003 train's word counts; then the same with the three
8k / 16k / 32k models.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_morph.py [--repeat 5] [--words 10000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (a sibling script module)


def write_gold(path: Path, words: list[str]) -> None:
    rows = [f"{i},{w},{w[:-2]},{w[-2:]}" for i, w in enumerate(words)]
    path.write_text(",full_word,pt1,rest\n" + "\n".join(rows) + "\n", encoding="utf-8")


def timed(path: Path, segs: list, counts: Counter) -> tuple[float, list]:
    from tokstudy.analysis.morph import morph_table
    from tokstudy.data.segmentations import read_segmentations

    start = time.perf_counter()
    gold = read_segmentations(path)
    results = morph_table([gold], segs, corpus_counts=counts)
    return time.perf_counter() - start, list(results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--words", type=int, default=10_000)
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)
    from bench_stats import train_models

    from tokstudy.data.registry import load_dataset
    from tokstudy.inputs import load_tokenizers

    models = train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    train = load_dataset("conll2003", "train")
    counts = Counter(w for s in train.sentences for w in s.words)
    words = [w for w in counts if w.isalpha() and len(w) >= 4][: args.words]
    if len(words) < args.words:
        raise SystemExit(f"only {len(words)} words found; lower --words")
    path = Path(tempfile.mkdtemp()) / "bench_morph_data.csv"
    write_gold(path, words)
    segs = load_tokenizers([f"sp{v // 1000}k={p}" for v, p in models.items()])
    for label, chosen in (("1 tokenizer (32k)", segs[-1:]), ("3 tokenizers", segs)):
        times, results = [], []
        for _ in range(args.repeat):
            t, results = timed(path, chosen, counts)
            times.append(t)
        ms = ", ".join(f"{r.tokenizer} {r.morphscore.value:.3f}" for r in results)
        print(
            f"{label}: {len(words):,} words, best {min(times):.3f} s, all {', '.join(f'{x:.3f}' for x in times)} "
            f"(MorphScore {ms}; target <= 2 s)"
        )
    print(runinfo.load_line())


if __name__ == "__main__":
    main()
