"""Benchmark: ``tokstudy stats`` end to end vs the raw SentencePiece floor vs a naive per-word loop.

Default mode, all in one run, on the three CoNLL-2003 splits (~300k words) and three
SentencePiece unigram vocabularies (8k / 16k / 32k, trained once on raw text and
cached under ``$TMPDIR/tokstudy_bench_spm``):

* **floor**: ``SentencePieceProcessor.encode(words)`` (one batch call, ids) per tokenizer,
  on the already-read words: the least any per-word count can cost;
* **tokstudy stats**: ``tokstudy stats -d conll2003:train -d conll2003:dev -d conll2003:test
  -t ... (3 tokenizers)``, in process, everything included (reading the three files,
  building the table, Table 4 + summaries + breakdowns with 1,000 bootstrap resamples),
  plus a breakdown of its phases;
* **naive**: a Python loop calling ``encode(word)`` once per word and accumulating NE /
  non-NE sums (no CIs).

``--intrinsic`` mode: the cost of the intrinsic metrics (compression, Shannon entropy, Rényi
efficiency, vocabulary use) in ``tokstudy stats``: read + table + statistics with and without them,
interleaved rounds, wall and CPU time, in process; then the command itself in fresh processes (the
issue's "end to end"); then the statistics phase alone.

``--big`` mode: streamed statistics over >= 1 GB of text (raw_text_large repeated into a
temp file), with worker processes; reports throughput and the peak RSS of the main
process and of the largest worker.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py [--repeat 3] [--big --gb 1.0] [--intrinsic]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (a sibling script module)

VOCABS = (8000, 16000, 32000)


def train_models(cache: Path) -> dict[int, Path]:
    """Unigram models trained on raw_text/en + raw_text_large/en (cached)."""
    import sentencepiece as spm

    from tokstudy.data.rawtext import iter_sentences
    from tokstudy.datalocation import corpus_dir

    cache.mkdir(parents=True, exist_ok=True)
    corpus = cache / "en_train.txt"
    if not corpus.exists():
        lines = list(iter_sentences(corpus_dir("raw_text") / "en.txt.gz"))
        lines += list(iter_sentences(corpus_dir("raw_text_large") / "en.txt.gz"))
        corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = {}
    for v in VOCABS:
        prefix = cache / f"sp{v // 1000}k"
        if not Path(f"{prefix}.model").exists():
            spm.SentencePieceTrainer.train(
                input=str(corpus),
                model_prefix=str(prefix),
                vocab_size=v,
                model_type="unigram",
                num_threads=2,
                minloglevel=2,
                input_sentence_size=200000,
                shuffle_input_sentence=True,
            )
        out[v] = Path(f"{prefix}.model")
    return out


def timed(fn, repeat: int):
    times = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), result


def bench_default(args) -> str:
    import sentencepiece as spm

    from tokstudy.analysis.stats import table_statistics
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.cli import main
    from tokstudy.specs import load_datasets, load_tokenizers

    models = train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    specs = ["conll2003:train", "conll2003:dev", "conll2003:test"]
    datasets = load_datasets(specs)
    words = [w for d in datasets for s in d for w in s.words]
    ne = [t != "O" for d in datasets for s in d for t in s.tags]
    procs = [spm.SentencePieceProcessor(model_file=str(models[v])) for v in VOCABS]
    print(f"{len(words):,} words, {sum(len(d) for d in datasets):,} sentences", file=sys.stderr)

    def floor():
        return [p.encode(words) for p in procs]

    def naive():
        out = []
        for p in procs:
            sums = {True: [0, 0], False: [0, 0]}
            for w, flag in zip(words, ne):
                sums[flag][0] += len(p.encode(w))
                sums[flag][1] += 1
            out.append(sums)
        return out

    cli_args = (
        ["stats"]
        + [x for s in specs for x in ("-d", s)]
        + [x for v in VOCABS for x in ("-t", f"sp{v // 1000}k={models[v]}")]
        + ["--no-progress", "--resamples", str(args.resamples)]
    )

    from tokstudy.analysis.stats import bootstrap

    def end_to_end():
        bootstrap._CACHE.clear()  # a fresh process would draw the resample weights too
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(cli_args) == 0

    def end_to_end_no_ci():
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(cli_args[:-1] + ["0"]) == 0

    segs = load_tokenizers([f"sp{v // 1000}k={models[v]}" for v in VOCABS])
    table_holder = {}

    def read():
        table_holder["dss"] = load_datasets(specs)

    def build():
        table_holder["table"] = segmentation_table(table_holder["dss"], segs, progress=False)

    def stats_cold():
        bootstrap._CACHE.clear()
        return table_statistics(table_holder["table"], n_resamples=args.resamples)

    # interleaved repeats: the machine is shared, so each round measures every variant
    # under similar load, and the best round of each is compared
    measures = {
        "floor": floor,
        "e2e": end_to_end,
        "e2e0": end_to_end_no_ci,
        "read": read,
        "table": build,
        "stats": stats_cold,
    }
    times = {k: [] for k in measures}
    for _ in range(args.repeat):
        for k, fn in measures.items():
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    best = {k: min(v) for k, v in times.items()}
    med = {k: statistics.median(v) for k, v in times.items()}
    table = table_holder["table"]
    n_min, n_med, _ = timed(naive, 1)
    f_min = best["floor"]
    rows = [
        ("floor: `encode(words)` batch call x 3 tokenizers", best["floor"], med["floor"]),
        (
            f"`tokstudy stats` end to end (read 3 files, table, stats, {args.resamples} resamples)",
            best["e2e"],
            med["e2e"],
        ),
        ("`tokstudy stats --resamples 0` end to end (same, no confidence intervals)", best["e2e0"], med["e2e0"]),
        ("naive per-word loop (`encode(w)` per word) x 3", n_min, n_med),
    ]
    r_min, t_min, s_min = best["read"], best["table"], best["stats"]

    lines = [
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}.",
        f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py --repeat {args.repeat}`",
        "",
        f"CoNLL-2003 train+dev+test: {len(words):,} words, {len(table.types):,} distinct; "
        f"SentencePiece unigram {', '.join(f'{v // 1000}k' for v in VOCABS)}.",
        "",
        "| what | best of runs (s) | median (s) | vs floor |",
        "|---|---:|---:|---:|",
    ]
    for name, lo, med in rows:
        lines.append(f"| {name} | {lo:.2f} | {med:.2f} | {lo / f_min:.2f}x |")
    lines += [
        "",
        "Phases of `tokstudy stats` (best of runs, measured separately):",
        "",
        "| phase | s |",
        "|---|---:|",
        f"| read the three CoNLL files (tokstudy.data readers) | {r_min:.2f} |",
        f"| build the table: word columns + 3 tokenizers (one `segment` call each, distinct words) | {t_min:.2f} |",
        f"| statistics: Table 4, summaries, by type/position, {args.resamples} resamples, 3 tokenizers | {s_min:.2f} |",
        f"| statistics without reading (table + stats) vs floor | {(t_min + s_min) / f_min:.2f}x |",
    ]
    return "\n".join(lines)


def bench_intrinsic(args) -> str:
    """``tokstudy stats`` end to end (read the 3 files, build the table, every statistic) with and
    without the intrinsic metrics; interleaved so both variants see the same load."""
    from tokstudy.analysis.stats import bootstrap, table_statistics
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.specs import load_datasets, load_tokenizers

    models = train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    specs = ["conll2003:train", "conll2003:dev", "conll2003:test"]
    segs = load_tokenizers([f"sp{v // 1000}k={models[v]}" for v in VOCABS])

    def run(intrinsic: bool):
        bootstrap._CACHE.clear()  # a fresh process draws the resample weights too
        table = segmentation_table(load_datasets(specs), segs, progress=False)
        return table_statistics(table, n_resamples=args.resamples, intrinsic=intrinsic)

    run(True)  # warm imports
    wall = {False: [], True: []}
    cpu = {False: [], True: []}
    for _ in range(args.repeat):
        for flag in (False, True):
            t, c = time.perf_counter(), time.process_time()
            run(flag)
            wall[flag].append(time.perf_counter() - t)
            cpu[flag].append(time.process_time() - c)
    lines = [
        f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py --intrinsic --repeat {args.repeat}`",
        "",
        "CoNLL-2003 train+dev+test, SentencePiece unigram 8k/16k/32k, "
        f"{args.resamples} resamples; read + table + every statistic (printing excluded).",
        "",
        "| variant | wall best (s) | wall median (s) | CPU best (s) | CPU median (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for flag, name in (
        (False, "without the intrinsic metrics"),
        (True, "with them (5 fields x NE/non-NE/all x 3 tokenizers)"),
    ):
        lines.append(
            f"| {name} | {min(wall[flag]):.2f} | {statistics.median(wall[flag]):.2f} | "
            f"{min(cpu[flag]):.2f} | {statistics.median(cpu[flag]):.2f} |"
        )
    for label, d in (("wall", wall), ("CPU", cpu)):
        lines.append(
            f"\nAdded ({label}, best vs best): {100 * (min(d[True]) / min(d[False]) - 1):+.1f} %; "
            f"(median vs median): {100 * (statistics.median(d[True]) / statistics.median(d[False]) - 1):+.1f} %."
        )
    # the command itself, fresh processes: `tokstudy stats` as a user runs it (imports, reading, table,
    # statistics, printing), with the intrinsic metrics and with them switched off by a patched default
    import subprocess

    cli = ["stats", *[x for sp in specs for x in ("-d", sp)], "--no-progress"]
    cli += [x for v in VOCABS for x in ("-t", f"sp{v // 1000}k={models[v]}")]
    cli += ["--resamples", str(args.resamples)]
    code = (
        "import sys\n"
        "from tokstudy.analysis import stats\n"
        "stats.table_statistics.__kwdefaults__['intrinsic'] = sys.argv[1] == 'with'\n"
        "from tokstudy.cli import main\n"
        "sys.exit(main(sys.argv[2:]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fresh = {False: [], True: []}
    fresh_cpu = {False: [], True: []}
    for _ in range(args.repeat):
        for flag in (False, True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            argv = [sys.executable, "-c", code, "with" if flag else "without", *cli]
            subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
            fresh[flag].append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            fresh_cpu[flag].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    lines += [
        "",
        "`tokstudy stats` itself, fresh processes (the command as a user runs it, output included; without = the "
        "same command with `table_statistics`' `intrinsic` default patched to False):",
        "",
        "| variant | wall best (s) | wall median (s) | CPU best (s) | CPU median (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for flag, name in ((False, "`tokstudy stats` without"), (True, "`tokstudy stats` with")):
        lines.append(
            f"| {name} | {min(fresh[flag]):.2f} | {statistics.median(fresh[flag]):.2f} | "
            f"{min(fresh_cpu[flag]):.2f} | {statistics.median(fresh_cpu[flag]):.2f} |"
        )
    for label, d in (("wall", fresh), ("CPU", fresh_cpu)):
        lines.append(
            f"\nAdded to `tokstudy stats` ({label}, best vs best): {100 * (min(d[True]) / min(d[False]) - 1):+.1f} %; "
            f"(median vs median): {100 * (statistics.median(d[True]) / statistics.median(d[False]) - 1):+.1f} %."
        )
    # the statistics phase alone, on one built table: the intrinsic metrics' own cost, less diluted by noise
    table = segmentation_table(load_datasets(specs), segs, progress=False)
    phase = {False: [], True: []}
    for _ in range(3 * args.repeat):
        for flag in (False, True):
            bootstrap._CACHE.clear()
            c = time.process_time()
            table_statistics(table, n_resamples=args.resamples, intrinsic=flag)
            phase[flag].append(time.process_time() - c)
    added = min(phase[True]) - min(phase[False])
    lines.append(
        f"\nStatistics phase alone (`table_statistics` on a built table, CPU, best of {3 * args.repeat}): "
        f"{min(phase[False]):.3f} s without, {min(phase[True]):.3f} s with: {added:+.3f} s, "
        f"{100 * added / min(cpu[False]):+.1f} % of the end-to-end CPU best without."
    )
    return "\n".join(lines)


def bench_big(args) -> str:
    from tokstudy.analysis.corpus.streaming import StreamSettings, stream_stats
    from tokstudy.data.rawtext import iter_sentences
    from tokstudy.datalocation import corpus_dir

    models = train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    target = int(args.gb * 2**30)
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.txt"
        src = [corpus_dir("raw_text_large") / f"{lang}.txt.gz" for lang in ("en", "fr", "de", "es", "it")]
        block = ("\n".join(iter_sentences(src)) + "\n").encode("utf-8")
        written = 0
        with open(big, "wb") as fh:
            while written < target:
                fh.write(block)
                written += len(block)
        del block
        settings = StreamSettings(chunk_sentences=args.chunk, processes=args.processes, n_resamples=args.big_resamples)
        t = time.perf_counter()
        res = stream_stats(iter_sentences(big), [f"sp32k={models[32000]}"], settings)
        dt = time.perf_counter() - t
    s = res.summary("sp32k")["all"]
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return "\n".join(
        [
            f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_stats.py --big --gb {args.gb} "
            f"--processes {args.processes} --chunk {args.chunk}`",
            "",
            f"Streamed {written / 2**30:.2f} GiB ({written:,} bytes; raw_text_large en/fr/de/es/it repeated), "
            f"{s.fertility.n_words:,} words, {res.n_chunks:,} chunks of {args.chunk} paragraphs, "
            f"{args.processes} worker processes, tokenizer sp32k, {args.big_resamples} bucket bootstrap resamples.",
            "",
            "| measure | value |",
            "|---|---:|",
            f"| wall time | {dt:.1f} s |",
            f"| throughput | {written / 2**20 / dt:.1f} MiB/s, {s.fertility.n_words / dt / 1e6:.2f} M words/s |",
            f"| peak RSS, main process | {rss_self:.0f} MiB |",
            f"| peak RSS, largest worker | {rss_child:.0f} MiB |",
            f"| fertility (all words) | {s.fertility.value:.4f} [{s.fertility.low:.4f}, {s.fertility.high:.4f}] |",
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (best and median reported)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples in `tokstudy stats`")
    ap.add_argument("--big", action="store_true", help="streamed statistics over >= --gb GiB instead")
    ap.add_argument(
        "--intrinsic", action="store_true", help="cost of the intrinsic metrics in `tokstudy stats` instead"
    )
    ap.add_argument(
        "--one-blas-thread",
        action="store_true",
        help="limit BLAS to one thread (CPU times stable under load; the default measures as users run it)",
    )
    ap.add_argument("--gb", type=float, default=1.0, help="GiB of text for --big")
    ap.add_argument("--processes", type=int, default=2, help="worker processes for --big")
    ap.add_argument("--chunk", type=int, default=2000, help="paragraphs per chunk for --big")
    ap.add_argument("--big-resamples", type=int, default=100, help="bootstrap resamples for --big")
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)
    limit = contextlib.nullcontext()
    if args.one_blas_thread:
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(limits=1, user_api="blas")
    with limit:
        print(bench_big(args) if args.big else bench_intrinsic(args) if args.intrinsic else bench_default(args))
    print(runinfo.load_line())


if __name__ == "__main__":
    main()
