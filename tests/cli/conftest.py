"""Fixtures for the analysis CLI tests: SentencePiece models trained once per session on real raw text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tests.fixtures_sentencepiece import train_unigram


@pytest.fixture(scope="session")
def en_models(tmp_path_factory) -> dict[int, Path]:
    """Unigram models of 2k and 8k pieces trained on raw_text/en (skips when absent)."""
    from tokstudy.data.rawtext import iter_sentences

    src = corpus_path("raw_text") / "en.txt.gz"
    d = tmp_path_factory.mktemp("cli_spm")
    corpus = d / "en.txt"
    corpus.write_text("\n".join(iter_sentences(src)) + "\n", encoding="utf-8")
    out = {}
    for vocab in (2000, 8000):
        prefix = d / f"sp{vocab}"
        out[vocab] = train_unigram(corpus, prefix, vocab, num_threads=2)
    return out
