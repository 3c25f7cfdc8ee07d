"""The SentencePiece unigram models the benchmarks share: 8k / 16k / 32k, trained once and cached.

One recipe (raw_text/en + raw_text_large/en, 200,000 sampled sentences, 2 threads) for every benchmark
that segments with "the benchmark tokenizers" (``bench_stats.py``, ``bench_attribute.py``,
``bench_corpus_stats.py``, ...), so their figures are taken with the same models. The models live under
``$TMPDIR/tokstudy_bench_spm`` (:data:`CACHE`) and are trained only when missing.

    >>> from spm_models import VOCABS, train_models     # benchmarks/ is on sys.path for its scripts
    >>> sorted(train_models()) == list(VOCABS)          # doctest: +SKIP
    True
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import sentencepiece as spm

from tokstudy.data.rawtext import iter_sentences
from tokstudy.datalocation import corpus_dir

VOCABS = (8000, 16000, 32000)
CACHE = Path(tempfile.gettempdir()) / "tokstudy_bench_spm"


def train_models(cache: Path = CACHE) -> dict[int, Path]:
    """Vocabulary size -> model file, for every size in :data:`VOCABS` (each trained once, cached)."""
    return {v: train_model(v, cache) for v in VOCABS}


def tokenizer_specs(models: dict[int, Path]) -> list[str]:
    """``NAME=PATH`` tokenizer specs (``sp8k=...``) for :func:`train_models`' result, as the CLI takes them."""
    return [f"sp{v // 1000}k={path}" for v, path in models.items()]


def train_model(vocab_size: int, cache: Path = CACHE) -> Path:
    """The ``sp{vocab_size // 1000}k`` unigram model file, trained on first use."""
    prefix = cache / f"sp{vocab_size // 1000}k"
    if not Path(f"{prefix}.model").exists():
        spm.SentencePieceTrainer.train(
            input=str(training_text(cache)),
            model_prefix=str(prefix),
            vocab_size=vocab_size,
            model_type="unigram",
            num_threads=2,
            minloglevel=2,
            input_sentence_size=200000,
            shuffle_input_sentence=True,
        )
    return Path(f"{prefix}.model")


def training_text(cache: Path = CACHE) -> Path:
    """raw_text/en + raw_text_large/en as one sentence per line (written once)."""
    cache.mkdir(parents=True, exist_ok=True)
    corpus = cache / "en_train.txt"
    if not corpus.exists():
        lines = list(iter_sentences(corpus_dir("raw_text") / "en.txt.gz"))
        lines += list(iter_sentences(corpus_dir("raw_text_large") / "en.txt.gz"))
        corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus
