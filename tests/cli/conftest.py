"""Fixtures for the analysis CLI tests: SentencePiece models trained once per test run on real raw text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.built_once import built_once
from tests.conftest import corpus_path
from tests.fixtures_sentencepiece import train_unigram


@pytest.fixture(scope="session")
def en_models(tmp_path_factory) -> dict[int, Path]:
    """Unigram models of 2k and 8k pieces trained on raw_text/en (skips when absent)."""
    from tokstudy.data.rawtext import iter_sentences

    src = corpus_path("raw_text") / "en.txt.gz"

    def build(d: Path) -> dict[int, Path]:
        corpus = d / "en.txt"
        corpus.write_text("\n".join(iter_sentences(src)) + "\n", encoding="utf-8")
        return {vocab: train_unigram(corpus, d / f"sp{vocab}", vocab, num_threads=2) for vocab in (2000, 8000)}

    return built_once(tmp_path_factory, "cli-en-models", build)  # once for the run, shared by the workers
