"""``bench_stats.py --big``: streamed statistics over >= 1 GB of text, with worker processes.

raw_text_large en/fr/de/es/it is repeated into a temporary file of ``--gb`` GiB and counted by
:func:`tokstudy.analysis.corpus.streaming.stream_stats` with the 32k benchmark tokenizer; reported: wall time,
throughput and the peak RSS of the main process and of the largest worker.
"""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

from spm_models import train_models

from tokstudy.analysis.corpus.streaming import StreamSettings, stream_stats
from tokstudy.data.rawtext import iter_sentences
from tokstudy.datalocation import corpus_dir


def bench_big(args) -> str:
    """Streamed statistics over ``args.gb`` GiB of raw_text_large (en/fr/de/es/it, repeated) with
    ``args.processes`` workers: wall time, throughput, peak RSS of the main process and of the largest worker."""
    models = train_models()
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
