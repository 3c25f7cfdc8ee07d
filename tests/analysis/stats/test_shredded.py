"""Shredded frequent words against a plain Counter over the words of files the tests write, encoded as each
tokenizer sees them in running text (SentencePiece: the word alone; byte-level BPE: a space before it)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from tokstudy.analysis.stats.shredded import compare_shredded, sentences_with_word, shredded_table, shredded_words
from tokstudy.analysis.table import segmentation_table
from tokstudy.inputs import load_datasets
from tokstudy.tokenization.loading import load_tokenizer

# the chunk test doubles mark digits unknown; the warning about it is not what these tests look at
pytestmark = pytest.mark.filterwarnings("ignore::tokstudy.analysis.table.coverage.UnknownPiecesWarning")

WORDS_EN = "the cat sat on a mat with Reykjavik and Ouagadougou while unbelievably extraordinary things".split()
WORDS_DE = "der Hund lief über die Donaudampfschifffahrt nach Reykjavik und Bundesverfassungsgericht".split()


def _write_conll(path: Path, vocabulary: list[str], seed: int, n_sentences: int = 120) -> list[list[str]]:
    """A CoNLL file of random sentences over ``vocabulary`` (Zipf-like frequencies); returns its sentences."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(vocabulary))]
    sentences = [rng.choices(vocabulary, weights, k=rng.randint(3, 12)) for _ in range(n_sentences)]
    path.write_text("\n\n".join("\n".join(f"{w} O" for w in s) for s in sentences) + "\n", encoding="utf-8")
    return sentences


@pytest.fixture(scope="module")
def byte_bpe(tmp_path_factory, spm_model) -> Path:
    """A byte-level BPE ``tokenizer.json`` (300 pieces) trained on a few sentences."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    text = [" ".join(WORDS_EN[:6]), " ".join(WORDS_DE[:4])] * 50
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(text, trainer)
    out = tmp_path_factory.mktemp("bbpe") / "tokenizer.json"
    tok.save(str(out))
    return out


def _reference(sentences: list[list[str]], encode, k: int) -> tuple[Counter, dict, int, int]:
    """Brute force: a Counter over the running words, each word's pieces, all pieces and shredded pieces."""
    freq = Counter(w for s in sentences for w in s)
    pieces = {w: encode(w) for w in freq}
    n_tokens = sum(len(pieces[w]) for s in sentences for w in s)
    shredded = sum(len(pieces[w]) for s in sentences for w in s if len(pieces[w]) >= k)
    return freq, pieces, n_tokens, shredded


def _encoders(spm_model, byte_bpe):
    import sentencepiece as spm
    from tokenizers import Tokenizer

    sp = spm.SentencePieceProcessor(model_file=str(spm_model))
    bb = Tokenizer.from_file(str(byte_bpe))
    return {"spm": lambda w: sp.encode(w, out_type=str), "bbpe": lambda w: bb.encode(" " + w).tokens}


@pytest.mark.parametrize("k", [2, 3, 5])
def test_ranking_equals_a_counter_over_encoded_words(tmp_path, spm_model, byte_bpe, k):
    path = tmp_path / "en.conll"
    sentences = _write_conll(path, WORDS_EN, seed=k)
    segs = [load_tokenizer(spm_model, name="spm"), load_tokenizer(byte_bpe, name="bbpe")]
    table = segmentation_table(load_datasets([str(path)]), segs, progress=False)
    for name, encode in _encoders(spm_model, byte_bpe).items():
        freq, pieces, n_tokens, n_shredded = _reference(sentences, encode, k)
        got = shredded_words(table, name, min_pieces=k, limit=None)
        expected = sorted((w for w in freq if len(pieces[w]) >= k), key=lambda w: (-freq[w], -len(pieces[w]), w))
        assert [w.word for w in got.words] == expected
        assert [(w.frequency, w.pieces) for w in got.words] == [(freq[w], tuple(pieces[w])) for w in expected]
        assert (got.n_tokens, got.n_shredded_tokens) == (n_tokens, n_shredded)
        assert got.n_words == sum(freq.values())
        assert got.n_shredded_words == sum(freq[w] for w in expected)
        assert got.token_share == pytest.approx(n_shredded / n_tokens)
        assert got.n_distinct == len(expected)
        assert len(shredded_words(table, name, min_pieces=k, limit=3).words) == min(3, len(expected))


def test_per_language_and_side_by_side(tmp_path, spm_model, byte_bpe):
    en, de = tmp_path / "en.conll", tmp_path / "de.conll"
    sent_en = _write_conll(en, WORDS_EN, seed=1)
    sent_de = _write_conll(de, WORDS_DE, seed=2)
    segs = [load_tokenizer(spm_model, name="spm"), load_tokenizer(byte_bpe, name="bbpe")]
    table = segmentation_table(load_datasets([f"{en}@en", f"{de}@de"]), segs, progress=False)
    result = shredded_table(table, min_pieces=3, limit=None)
    assert [(r.language, r.tokenizer) for r in result.rankings] == [
        ("en", "spm"),
        ("en", "bbpe"),
        ("de", "spm"),
        ("de", "bbpe"),
    ]
    encoders = _encoders(spm_model, byte_bpe)
    for r in result.rankings:
        sentences = sent_en if r.language == "en" else sent_de
        freq, pieces, n_tokens, n_shredded = _reference(sentences, encoders[r.tokenizer], 3)
        assert {w.word: w.frequency for w in r.words} == {w: freq[w] for w in freq if len(pieces[w]) >= 3}
        assert (r.n_tokens, r.n_shredded_tokens) == (n_tokens, n_shredded)
    # "Reykjavik" occurs in both languages: each ranking counts its own language's occurrences only
    for c in result.comparisons:
        sentences = sent_en if c.language == "en" else sent_de
        freq = Counter(w for s in sentences for w in s)
        for w in c.words:
            expected = tuple(len(encoders[t](w.word)) for t in c.tokenizers)
            assert (w.frequency, w.n_pieces) == (freq[w.word], expected)
            assert max(expected) >= 3
            assert c.kept_whole_by(w) == tuple(t for t, n in zip(c.tokenizers, expected) if n == 1)
            assert c.shredded_by(w) == tuple(t for t, n in zip(c.tokenizers, expected) if n >= 3)


def test_kept_whole_by_one_shredded_by_another(toy):
    from tests.analysis.conftest import ChunkSegmenter

    table = segmentation_table([toy], [ChunkSegmenter(2), ChunkSegmenter(9)], progress=False)
    c = compare_shredded(table, min_pieces=3, limit=None)
    by_word = {w.word: w for w in c.words}
    assert by_word["Blackburn"].n_pieces == (5, 1)
    assert c.kept_whole_by(by_word["Blackburn"]) == ("chunk9",)
    assert c.shredded_by(by_word["Blackburn"]) == ("chunk2",)
    assert "EU" not in by_word  # one piece under both


def test_sentences_of_a_word_and_bad_arguments(toy):
    from tests.analysis.conftest import ChunkSegmenter

    table = segmentation_table([toy, toy.with_meta(split="dev")], [ChunkSegmenter(2)], progress=False)
    assert sentences_with_word(table, "Blackburn") == [("toy:test", 1), ("toy:dev", 1)]
    assert sentences_with_word(table, "absent") == []
    with pytest.raises(ValueError, match="2 or more"):
        shredded_words(table, min_pieces=1)
    with pytest.raises(KeyError, match="no language 'xx'"):
        shredded_words(table, language="xx")
