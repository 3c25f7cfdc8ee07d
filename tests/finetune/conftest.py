"""A tiny random-initialised ALBERT with a real SentencePiece vocabulary, built once per session.

The vocabulary is trained on lines of the shared English raw text when present (else on
a small built-in text, so the fixture never skips), converted with tokstudy's
Hugging Face exporter, and checked piece by piece against sentencepiece (transformers 5
can load an ALBERT tokenizer with an empty vocabulary without complaint).
"""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import pytest

from tests.fixtures_hf_models import hf_token_models  # noqa: F401  (models fine-tuned elsewhere, one per family)
from tokstudy.datalocation import data_root

TINY = dict(
    embedding_size=32,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=128,
    max_position_embeddings=64,
)

_FALLBACK = [
    "The European Union rejects the German call to boycott British lamb .",
    "Play the latest album by Abba on Spotify in the kitchen tonight please",
    "Book a table for four at a French restaurant in Paris next Friday",
    "What will the weather be like in New York City tomorrow morning",
]


def _lines(n: int) -> list[str]:
    path = data_root() / "raw_text" / "en.txt.gz"
    if path.is_file():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return [l.strip() for l in itertools.islice(fh, n) if l.strip()]
    return [f"{s} {i}" for i in range(400) for s in _FALLBACK]


def build_tiny_albert(directory: Path, *, vocab_size: int = 2000, n_lines: int = 6000, **overrides) -> Path:
    """Train a sentencepiece vocabulary and save a random ALBERT + tokenizer that ``AutoTokenizer`` loads."""
    import sentencepiece as spm
    import torch
    from transformers import AlbertConfig, AlbertModel, AutoTokenizer

    from tests.fixtures_sentencepiece import train_unigram
    from tokstudy.tokenization.hf_export import (
        ALBERT_SPECIALS,
        add_albert_post_processor,
        spm_to_hf_tokenizer,
        write_hf_files,
    )

    directory.mkdir(parents=True, exist_ok=True)
    train_unigram(_lines(n_lines), directory / "spiece", vocab_size, albert=True, num_threads=1, hard_vocab_limit=False)
    tok = spm_to_hf_tokenizer(directory / "spiece.model")
    add_albert_post_processor(tok)
    write_hf_files(tok, directory, special_tokens=ALBERT_SPECIALS, model_max_length=TINY["max_position_embeddings"])
    sp = spm.SentencePieceProcessor(model_file=str(directory / "spiece.model"))
    torch.manual_seed(0)
    config = AlbertConfig(vocab_size=sp.get_piece_size(), **{**TINY, **overrides})
    AlbertModel(config).save_pretrained(directory)
    loaded = AutoTokenizer.from_pretrained(str(directory))
    pieces = loaded.convert_ids_to_tokens(list(range(sp.get_piece_size())))
    assert len(loaded) == sp.get_piece_size() and pieces == [sp.id_to_piece(i) for i in range(sp.get_piece_size())], (
        "the Hugging Face tokenizer does not hold sentencepiece's vocabulary"
    )
    return directory


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """Directory of a tiny random ALBERT (2 layers, hidden 64, 64 positions, ~2k pieces)."""
    return build_tiny_albert(tmp_path_factory.mktemp("tiny-albert"))


#: settings for the brief real-data runs: a few thousand words, big learning rate for a tiny random model
QUICK = dict(
    n_seeds=1,
    epochs=4,
    batch_size=32,
    learning_rate=2e-3,
    warmup_ratio=0.05,
    patience=0,
    max_length=64,
    stride=16,
    progress=False,
    max_train_sentences=1500,
    max_eval_sentences=300,
)


@pytest.fixture(scope="session")
def snips_run(tiny_model, tmp_path_factory) -> Path:
    """A finished one-seed slot-filling run of the tiny model on a SNIPS subset (its run directory)."""
    from pretrain.finetune.config import FinetuneConfig
    from pretrain.finetune.run import finetune
    from tests.conftest import corpus_path

    corpus_path("snips")
    out = tmp_path_factory.mktemp("snips-run")
    finetune(FinetuneConfig(model=str(tiny_model), task="ner", dataset="snips", model_name="tiny", **QUICK), out)
    return out
