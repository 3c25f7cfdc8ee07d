"""Benchmark: tokstudy's tokenizer training vs a direct SentencePieceTrainer.train, and sampling memory.

1. Training overhead. One sample is drawn, then timed ``--repeats`` times each:
   * ``direct``: ``SentencePieceTrainer.train(sentence_iterator=..., **same options)``;
   * ``direct-file``: the same from a temporary text file (the other way to feed sentencepiece);
   * ``tokstudy``: ``train_one`` (the per-vocabulary step of ``train_tokenizers``): the same
     training plus the HF conversion, ``tokenizer.json``/config files, manifest, atomic rename.
   Target: tokstudy / direct <= 1.05 (medians). The sampling pass is timed on its own.
2. Sampling memory. ``sample_sentences(iter_sentences(files), k)`` in a fresh subprocess on the
   corpus listed once and listed ``--scale`` times (the stream is ``scale`` times longer);
   peak RSS (``ru_maxrss``) must not grow with the corpus.

Run (2-core machine, ~3 minutes):
    OMP_NUM_THREADS=1 TOKSTUDY_DATA=/work/shared/data .venv/bin/python benchmarks/bench_tokenizer_training.py
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import runinfo  # noqa: E402 (a sibling script module)

from tokstudy.datalocation import corpus_dir  # noqa: E402


def _time(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads): CPU time is robust to other load."""
    import resource

    r0, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    fn()
    wall, r1 = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def bench_training(args) -> dict:
    import sentencepiece as spm

    from tokstudy.data.rawtext import iter_sentences
    from tokstudy.tokenization.sampling import sample_sentences
    from tokstudy.tokenization.training import TokenizerTrainingConfig, sentencepiece_options, train_one

    inputs = (corpus_dir(args.corpus),)
    t0 = time.perf_counter()
    sample = sample_sentences(iter_sentences(inputs), args.sample_size, seed=0)
    sampling_s = time.perf_counter() - t0
    out = Path(tempfile.mkdtemp(prefix="bench_tok_"))
    cfg = TokenizerTrainingConfig(
        inputs=inputs,
        output_dir=out,
        algorithm=args.algorithm,
        vocab_sizes=(args.vocab_size,),
        sample_size=args.sample_size,
        num_threads=args.threads,
    )
    opts = sentencepiece_options(cfg, args.vocab_size)
    text_file = out / "sample.txt"
    text_file.write_text("\n".join(sample) + "\n", encoding="utf-8")

    def direct():
        spm.SentencePieceTrainer.train(sentence_iterator=iter(sample), model_prefix=str(out / "direct"), **opts)

    def direct_file():
        spm.SentencePieceTrainer.train(input=str(text_file), model_prefix=str(out / "direct_file"), **opts)

    def ours():
        train_one(sample, cfg, args.vocab_size)

    times = {"direct": [], "direct-file": [], "tokstudy": []}
    cpu = {k: [] for k in times}
    runs = (("direct", direct), ("tokstudy", ours), ("direct-file", direct_file))
    for r in range(args.repeats):  # interleaved, order reversed every other repeat: load drift hits all alike
        for name, fn in runs if r % 2 == 0 else runs[::-1]:
            wall, c = _time(fn)
            times[name].append(wall)
            cpu[name].append(c)
            print(f"  repeat {r + 1}: {name:12s} wall {wall:6.2f} s  cpu {c:6.2f} s", flush=True)
    # the only work tokstudy adds after training: HF conversion + files (timed alone: load-independent)
    from tokstudy.tokenization.hf_export import (
        ALBERT_SPECIALS,
        add_albert_post_processor,
        spm_to_hf_tokenizer,
        write_hf_files,
    )

    def export():
        tok = spm_to_hf_tokenizer(out / "direct.model", algorithm=args.algorithm.removeprefix("sp-"))
        add_albert_post_processor(tok)
        write_hf_files(tok, out / "export", special_tokens=ALBERT_SPECIALS)

    export_s = statistics.median(_time(export)[0] for _ in range(5))
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    return {
        "n_sentences": len(sample),
        "sampling_s": sampling_s,
        "times": times,
        "median": med,
        "median_cpu": med_cpu,
        "ratio": med["tokstudy"] / med["direct"],
        "ratio_cpu": med_cpu["tokstudy"] / med_cpu["direct"],
        "export_s": export_s,
    }


_RSS = """
import resource, sys, time
sys.path.insert(0, {root!r})
from tokstudy.data.rawtext import iter_sentences
from tokstudy.tokenization.sampling import sample_sentences
paths = [{corpus!r}] * int(sys.argv[1])
t = time.perf_counter()
n = [0]
def counted(it):
    for s in it:
        n[0] += 1
        yield s
s = sample_sentences(counted(iter_sentences(paths)), int(sys.argv[2]), seed=0)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, n[0], len(s), time.perf_counter() - t)
"""


def bench_memory(args) -> list[tuple]:
    corpus = str(corpus_dir(args.memory_corpus))
    script = _RSS.format(root=str(ROOT), corpus=corpus)
    rows = []
    for scale in (1, args.scale):
        out = subprocess.run(
            [sys.executable, "-c", script, str(scale), str(args.sample_size)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        rss_kib, n_read, n_kept, secs = int(out[0]), int(out[1]), int(out[2]), float(out[3])
        rows.append((scale, n_read, n_kept, rss_kib / 1024, secs))
        print(
            f"  corpus x{scale}: read {n_read:,} sentences, kept {n_kept:,}, peak RSS {rss_kib / 1024:.1f} MiB, "
            f"{secs:.1f} s",
            flush=True,
        )
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default="raw_text")
    p.add_argument("--memory-corpus", default="raw_text_large")
    p.add_argument("--algorithm", default="sp-unigram", choices=["sp-unigram", "sp-bpe"])
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--sample-size", type=int, default=15000)
    p.add_argument("--repeats", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--scale", type=int, default=10)
    args = p.parse_args(argv)
    print(runinfo.describe(), flush=True)
    print(f"training: {args.algorithm}, vocab {args.vocab_size}, sample {args.sample_size} sentences of {args.corpus}")
    tr = bench_training(args)
    m = tr["median"]
    print(f"sampling pass: {tr['sampling_s']:.2f} s for {tr['n_sentences']:,} sentences kept")
    print(
        f"median direct (iterator) {m['direct']:.2f} s | direct (file) {m['direct-file']:.2f} s | "
        f"tokstudy {m['tokstudy']:.2f} s | ratio tokstudy/direct {tr['ratio']:.3f} (target <= 1.05)"
    )
    c = tr["median_cpu"]
    print(
        f"median CPU  direct {c['direct']:.2f} s | direct (file) {c['direct-file']:.2f} s"
        f" | tokstudy {c['tokstudy']:.2f} s"
        f" | ratio {tr['ratio_cpu']:.3f}"
    )
    print(
        f"HF export alone (conversion + tokenizer.json + configs): {tr['export_s'] * 1000:.0f} ms = "
        f"{tr['export_s'] / m['direct']:.2%} of the direct training time"
    )
    print(f"sampling memory: {args.memory_corpus} x1 vs x{args.scale}, sample {args.sample_size}")
    rows = bench_memory(args)
    growth = rows[1][3] - rows[0][3]
    print(f"peak RSS growth x1 -> x{args.scale}: {growth:+.1f} MiB (target: none)")
    print(runinfo.load_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
