"""Benchmark: the shredded-word ranking against ``tokstudy stats``, on the same input.

Input: CoNLL-2003 train + dev + test (~300k words) and three SentencePiece unigram vocabularies (8k / 16k /
32k, the cached models of ``bench_stats.py``). In process, interleaved rounds, best of ``--repeat``:

* **stats**: ``tokstudy stats -d conll2003:train -d conll2003:dev -d conll2003:test -t ... --no-progress``
  (reading, the table, Table 4 and every figure with 1,000 bootstrap resamples);
* **ranking**: the same reading and table through the API, then ``shredded_table`` (every shredded word of
  every tokenizer, side by side) and its CSV, what ``--shredded-csv`` writes;
* **stats --shredded**: the command with ``--shredded --shredded-csv``, to show what the option adds.

The target: the ranking within 1.2x of ``tokstudy stats``.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_shredded.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (a sibling script module)

DATASETS = ("conll2003:train", "conll2003:dev", "conll2003:test")


def run_stats(toks: list[str], extra: list[str]) -> float:
    """``tokstudy stats`` in process, its output swallowed; wall seconds."""
    from tokstudy.cli import main

    argv = ["stats", *(x for d in DATASETS for x in ("-d", d)), *toks, "--no-progress", *extra]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    return time.perf_counter() - start


def run_ranking(models: dict, csv_path: Path) -> tuple[float, int]:
    """Read, build the table, rank every tokenizer's shredded words, write the CSV; wall seconds, words ranked."""
    from tokstudy.analysis.stats.shredded import shredded_table
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.inputs import load_datasets, load_tokenizers
    from tokstudy.report.shredded import write_shredded_csv

    start = time.perf_counter()
    datasets = load_datasets(list(DATASETS))
    segs = load_tokenizers([f"sp{v // 1000}k={p}" for v, p in models.items()])
    table = segmentation_table(datasets, segs, progress=False)
    result = shredded_table(table, limit=None)
    write_shredded_csv(result, csv_path)
    return time.perf_counter() - start, sum(len(r.words) for r in result.rankings)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (default 3)")
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)
    from bench_stats import train_models

    models = train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    toks = [x for v, p in models.items() for x in ("-t", f"sp{v // 1000}k={p}")]
    out = Path(tempfile.mkdtemp())
    times = {"stats": [], "ranking": [], "stats --shredded": []}
    ranked = 0
    for _ in range(args.repeat):
        times["stats"].append(run_stats(toks, []))
        t, ranked = run_ranking(models, out / "ranking.csv")
        times["ranking"].append(t)
        times["stats --shredded"].append(run_stats(toks, ["--shredded", "--shredded-csv", str(out / "s.csv")]))
    best = {k: min(v) for k, v in times.items()}
    for k, v in times.items():
        print(f"{k}: best {best[k]:.2f} s, all {', '.join(f'{x:.2f}' for x in v)}")
    print(f"ranking / stats: {best['ranking'] / best['stats']:.2f}x (target <= 1.2x); {ranked:,} words ranked")
    print(f"stats --shredded / stats: {best['stats --shredded'] / best['stats']:.2f}x")
    print(runinfo.load_line())


if __name__ == "__main__":
    main()
