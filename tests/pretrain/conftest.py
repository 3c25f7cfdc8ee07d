"""Fixtures for the pre-trainer's tests: a tokenizer trained on the real raw text, and an example store.

Both are made the way a user makes them: the tokenizer by ``tokstudy``'s ``train_tokenizers``
(an ALBERT-style sentencepiece unigram model, pad=0, unk=1, control symbols [CLS] [SEP] [MASK],
with the Hugging Face files that ``AutoTokenizer`` loads), the store by ``pretrain prepare``
(n-gram masking, SOP), both on English sentences from ``raw_text``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.built_once import built_once
from tests.conftest import corpus_path

os.environ.setdefault("OMP_NUM_THREADS", "1")

VOCAB_SIZE = 600
MAX_SEQ = 64
MAX_PRED = 10
N_SENTENCES = 3000
N_EXAMPLES = 2000


def raw_english() -> Path:
    return corpus_path("raw_text") / "en.txt.gz"


def train_tokenizer(directory: Path, vocab_size: int = VOCAB_SIZE, sample_size: int = N_SENTENCES) -> Path:
    """An ALBERT-style sentencepiece unigram tokenizer trained by tokstudy on real English text."""
    from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers

    cfg = TokenizerTrainingConfig(
        inputs=(str(raw_english()),),
        output_dir=str(directory),
        vocab_sizes=(vocab_size,),
        sample_size=sample_size,
        num_threads=1,
        character_coverage=1.0,
    )
    (trained,) = train_tokenizers(cfg, progress=False)
    return trained.path


def build_store(tokenizer_dir: Path, path: Path, *, max_examples: int = N_EXAMPLES) -> Path:
    """Examples made by ``pretrain prepare`` (n-gram masking, SOP) from the same English text."""
    from pretrain.data.config import PrepareConfig
    from pretrain.data.prepare import prepare

    cfg = PrepareConfig(
        inputs=[str(raw_english())],
        tokenizer=str(tokenizer_dir),
        output=str(path),
        max_seq_length=MAX_SEQ,
        max_predictions=MAX_PRED,
        max_examples=max_examples,
        seed=0,
    )
    return prepare(cfg, progress=False).path


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "pretrain-tokenizer", train_tokenizer)


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory, tokenizer_dir) -> Path:
    return built_once(tmp_path_factory, "pretrain-store", lambda d: build_store(tokenizer_dir, d / "examples"))


@pytest.fixture(scope="session")
def store(store_dir):
    from pretrain.data.store import ExampleStore

    return ExampleStore(store_dir)
