"""Fixtures for the analysis tests: small in-memory datasets, fake segmenters, a tiny SentencePiece model."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tokstudy.data.types import Dataset, Sentence
from tokstudy.tokenization.base import Segmentation, Segmenter


class ChunkSegmenter(Segmenter):
    """Splits each word into chunks of ``size`` characters; a chunk with a digit is unknown.

    A test double with obvious, hand-checkable output.
    """

    kind = "test"

    def __init__(self, size: int, name: str | None = None):
        self.size = size
        self.name = name or f"chunk{size}"
        self.vocab_size = 100 * size
        self.calls = 0

    def segment(self, words):
        self.calls += 1
        per_word = [self.pieces(w) for w in words]
        return Segmentation.from_lists(per_word, unk_piece="<unk>")

    def pieces(self, word: str) -> list[str]:
        chunks = [word[i : i + self.size] for i in range(0, len(word), self.size)]
        return ["<unk>" if any(c.isdigit() for c in ch) else ch for ch in chunks]


class SpmSegmenter(Segmenter):
    """Minimal SentencePiece segmenter for tests (independent of tokstudy.tokenization)."""

    kind = "sentencepiece"

    def __init__(self, model_file, name: str):
        import sentencepiece as spm

        self.sp = spm.SentencePieceProcessor(model_file=str(model_file))
        self.name = name
        self.vocab_size = self.sp.get_piece_size()

    def segment(self, words):
        lists = self.sp.encode(list(words), out_type=str)
        return Segmentation.from_lists(lists, unk_piece=self.sp.id_to_piece(self.sp.unk_id()))


TYPES = ["PER", "LOC", "ORG", "MISC"]


def random_dataset(
    seed: int, n_sentences: int, name="rand", language="en", split="test", unlabelled_every=0
) -> Dataset:
    """Random words (some with digits) and random valid-or-IOB1-ish tags (I- may start entities)."""
    rng = random.Random(seed)
    sents = []
    for i in range(n_sentences):
        n = rng.randint(1, 12)
        words = tuple(
            "".join(
                rng.choice("abcdefghijklmnopqrstuvwxyz0123456789" if rng.random() < 0.2 else "abcdefghij")
                for _ in range(rng.randint(1, 11))
            )
            for _ in range(n)
        )
        tags = []
        for _ in range(n):
            r = rng.random()
            tags.append("O" if r < 0.55 else f"{rng.choice('BI')}-{rng.choice(TYPES)}")
        labelled = not (unlabelled_every and i % unlabelled_every == 0)
        sents.append(Sentence(words, tuple(tags) if labelled else None, sent_id=i, line=1 + i * 20))
    return Dataset(tuple(sents), name=name, language=language, split=split, source=f"/fake/{name}.txt")


@pytest.fixture
def toy() -> Dataset:
    s = [
        Sentence(("EU", "rejects", "German", "call"), ("B-ORG", "O", "B-MISC", "O"), sent_id=0),
        Sentence(("Peter", "Blackburn"), ("B-PER", "I-PER"), sent_id=1),
        Sentence(("BRUSSELS", "1996-08-22"), ("B-LOC", "O"), sent_id=2),
    ]
    return Dataset(tuple(s), name="toy", language="en", split="test")


@pytest.fixture(scope="session")
def spm_model(tmp_path_factory) -> Path:
    """A tiny SentencePiece unigram model (vocab 400) trained on raw English text or a synthetic corpus."""
    from tests.fixtures_sentencepiece import train_unigram
    from tokstudy.data.rawtext import iter_sentences
    from tokstudy.datalocation import corpus_dir, has_corpus

    d = tmp_path_factory.mktemp("spm")
    corpus = d / "corpus.txt"
    if has_corpus("raw_text"):
        lines = []
        for line in iter_sentences(corpus_dir("raw_text") / "en.txt.gz"):
            lines.append(line)
            if len(lines) >= 3000:
                break
    else:
        rng = random.Random(0)
        lines = [
            " ".join("".join(rng.choice("abcdefgh") for _ in range(rng.randint(2, 8))) for _ in range(10))
            for _ in range(3000)
        ]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return train_unigram(corpus, d / "tiny", 400, character_coverage=0.9995, num_threads=1)


def naive_rows(table, tokenizer):
    """Row dicts built with a plain Python loop from the table's public accessors."""
    n = table.n_pieces(tokenizer)
    return [
        {
            "sentence": int(table.sentence[r]),
            "inside": bool(table.position[r] != 0),
            "labelled": bool(table.labelled[r]),
            "n": int(n[r]),
            "unk": int(table.n_unk(tokenizer)[r]),
        }
        for r in range(len(table))
    ]


np.set_printoptions(linewidth=140)
