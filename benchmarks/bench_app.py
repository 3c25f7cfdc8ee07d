"""How fast the explorer re-renders: a 50-word sentence under 3 SentencePiece tokenizers.

Times (1) the explorer's render path itself (``build_view`` = one batch ``segment`` call per
tokenizer + ``render_html``), median over many runs, and (2) a full Streamlit script rerun
of the explorer page through ``AppTest`` after changing the text (widget handling, the
sidebar, cache lookups, element serialisation; no browser round trip).

Usage (needs the shared corpora for training the three tokenizers):

    TOKSTUDY_DATA=/work/shared/data OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_app.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def train_tokenizers(out: Path) -> list[Path]:
    import sentencepiece as spm

    from tokstudy.data.registry import load_dataset

    train = load_dataset("conll2003", "train")
    sentences = [" ".join(s.words) for s in train.sentences[:6000]]
    paths = []
    for v in (600, 1200, 2400):
        d = out / "tokenizers" / f"spm-{v}"
        d.mkdir(parents=True)
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences), model_prefix=str(d / "spiece"), vocab_size=v, model_type="unigram",
            character_coverage=1.0, pad_id=0, unk_id=1, bos_id=-1, eos_id=-1,
            control_symbols=["[CLS]", "[SEP]", "[MASK]"], num_threads=1, minloglevel=2,
        )
        paths.append(d)
    return paths


def fifty_words() -> tuple[list[str], list[str]]:
    from tokstudy.data.registry import load_dataset

    test = load_dataset("conll2003", "test")
    words, tags = [], []
    for s in test:
        words.extend(s.words)
        tags.extend(s.tags)
        if len(words) >= 50:
            return words[:50], tags[:50]
    raise RuntimeError("CoNLL-2003 test has fewer than 50 words")


def main() -> None:
    from analysis_app.services.explorer import build_view, render_html
    from tokstudy.tokenization.loading import load_tokenizer

    tmp = Path(tempfile.mkdtemp(prefix="bench_app_"))
    dirs = train_tokenizers(tmp)
    segs = [load_tokenizer(d) for d in dirs]
    words, tags = fifty_words()
    preds = {"model": tags}

    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        html = render_html(build_view(words, tags, segs, preds))
        times.append(time.perf_counter() - t0)
    print(f"render path (build_view + render_html), 50 words x 3 tokenizers: median {statistics.median(times) * 1e3:.2f} ms, "
          f"p95 {sorted(times)[int(0.95 * len(times))] * 1e3:.2f} ms, html {len(html)} chars")

    from streamlit.testing.v1 import AppTest

    os.environ["TOKSTUDY_APP_RESULTS"] = str(tmp)
    os.environ["TOKSTUDY_APP_UPLOAD_DIR"] = str(tmp / "uploads")
    at = AppTest.from_file(str(ROOT / "analysis_app" / "app.py"), default_timeout=60).run()
    text = " ".join(words)
    reruns = []
    for i in range(20):
        at.text_area(key="ts_ex_text").set_value(text + (" ." if i % 2 else ""))
        t0 = time.perf_counter()
        at.run()
        reruns.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    n_rows = at.html[0].proto.body.count("<tr") - 1
    print(f"full explorer page rerun (AppTest, text changed), {n_rows} words x 3 tokenizers: "
          f"median {statistics.median(reruns) * 1e3:.1f} ms, max {max(reruns) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
