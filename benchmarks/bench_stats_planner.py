"""Before/after check of a statistics refactor: identical results and the CPU time of ``table_statistics``.

Writes the repr of every statistic (table_statistics with 300 resamples and the single-figure
functions) to the file named by argv[1], then times ``table_statistics`` (1000 resamples) on
CoNLL-2003 test + WikiANN de test with two SentencePiece unigram vocabularies (2k, 4k) trained
on raw_text/en. Run it on two trees and ``cmp`` the files.

    TOKSTUDY_DATA=../shared/data OMP_NUM_THREADS=1 python benchmarks/bench_stats_planner.py /tmp/out.txt
"""

import os
import sys
import time
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs
import sentencepiece as spm

import tokstudy as ts
from tokstudy.analysis.stats import (
    BootstrapSettings,
    additional_segmentation,
    additional_segmentation_by,
    segmentation_summary,
    table_statistics,
)

work = Path(os.environ.get("TOKSTUDY_BENCH_WORK", "/tmp/tokstudy_bench_planner"))
work.mkdir(parents=True, exist_ok=True)
if not (work / "sp4000.model").exists():
    from tokstudy.data.rawtext import iter_sentences

    corpus = work / "en.txt"
    corpus.write_text("\n".join(iter_sentences(ts.corpus_dir("raw_text") / "en.txt.gz")) + "\n")
    for v in (2000, 4000):
        spm.SentencePieceTrainer.train(
            input=str(corpus), model_prefix=str(work / f"sp{v}"), vocab_size=v, model_type="unigram", minloglevel=2
        )
print(runinfo.describe(), flush=True)
toks = [ts.load_tokenizer(work / f"sp{v}.model", name=f"sp{v}") for v in (2000, 4000)]
ds = [ts.load_dataset("conll2003", "test"), ts.load_dataset("wikiann", "test", language="de")]
table = ts.segmentation_table(ds, toks, progress=False)
res = [
    table_statistics(table, bootstrap=BootstrapSettings(300, seed=3)),
    additional_segmentation(table, "sp2000", bootstrap=BootstrapSettings(100)),
    segmentation_summary(table, "sp4000", bootstrap=BootstrapSettings(100)),
    additional_segmentation_by(table, "sp2000", by="language", subset="ne", bootstrap=BootstrapSettings(100)),
]
open(sys.argv[1], "w").write(repr(res))
ts_ = []
for _ in range(7):
    t0 = time.process_time()
    table_statistics(table, bootstrap=BootstrapSettings(1000))
    ts_.append(time.process_time() - t0)
print("table_statistics cpu best %.3f median %.3f" % (min(ts_), sorted(ts_)[3]))
print(runinfo.load_line())
