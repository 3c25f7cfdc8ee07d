"""Tokenizers trained once per test run (shared by the workers) on a small sample of the real raw text.

Small vocabularies and samples keep the whole folder well under its time budget; the
sample spans all ten raw_text languages (incl. ru, ar, zh, ja).
"""

from __future__ import annotations

import gzip
import itertools
from functools import partial
from pathlib import Path

import pytest

from tests.built_once import built_once
from tests.conftest import corpus_path

#: algorithm -> (vocabulary sizes, sample size)
SETTINGS = {
    "sp-unigram": ((2000, 3000), 5000),
    "sp-bpe": ((3000,), 6000),
    "hf-unigram": ((2000,), 2500),
    "hf-bpe": ((3000,), 6000),
    "hf-wordpiece": ((3000,), 6000),
}


@pytest.fixture(scope="session")
def trained(tmp_path_factory):
    """algorithm -> list[TrainedTokenizer], trained lazily, once per session."""
    from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers

    cache: dict = {}

    def train(algorithm: str, out: Path):
        sizes, sample = SETTINGS[algorithm]
        cfg = TokenizerTrainingConfig(
            inputs=(corpus_path("raw_text"),),
            output_dir=out,
            algorithm=algorithm,
            vocab_sizes=sizes,
            sample_size=sample,
            seed=1,
            num_threads=2,
        )
        return train_tokenizers(cfg, progress=False)

    def get(algorithm: str):
        if algorithm not in cache:  # each algorithm once for the whole run (tests.built_once)
            cache[algorithm] = built_once(tmp_path_factory, f"tokenizers-{algorithm}", partial(train, algorithm))
        return cache[algorithm]

    return get


@pytest.fixture(scope="session")
def raw_lines():
    """Real lines from every raw_text language (ones past the start of each file)."""
    root = corpus_path("raw_text")
    lines = []
    for f in sorted(root.glob("*.txt.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            lines += [l.strip() for l in itertools.islice(fh, 600, 750) if l.strip()]
    # lines with the quotes AlbertTokenizer would rewrite: the exported tokenizer must keep them
    for f in sorted(root.glob("*.txt.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            lines += [l.strip() for l in fh if "''" in l or "``" in l][:5]
    return lines


def _first_column_sentences(path: Path, limit: int, split) -> list[list[str]]:
    """First ``limit`` sentences of a gzip'd column file; ``split(line)`` gives a line's word or None."""
    sents, cur = [], []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line.strip():
                if cur:
                    sents.append(cur)
                    cur = []
                    if len(sents) >= limit:
                        break
                continue
            word = split(line)
            if word is not None:
                cur.append(word)
    if cur and len(sents) < limit:
        sents.append(cur)
    return sents


def conll_sentences(path: Path, limit: int) -> list[list[str]]:
    """First ``limit`` sentences of a CoNLL-2003 file (first column), read independently of tokstudy."""

    def word(line: str) -> str | None:
        w = line.split(" ")[0] if " " in line else line.split("\t")[0]
        return None if w == "-DOCSTART-" else w

    return _first_column_sentences(path, limit, word)


def tsv_sentences(path: Path, limit: int) -> list[list[str]]:
    """First ``limit`` sentences of a two-column ``token<TAB>tag`` file (WikiANN)."""
    return _first_column_sentences(path, limit, lambda line: line.split("\t")[0])
