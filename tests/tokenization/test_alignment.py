"""Per-word pieces through load_tokenizer(...).segment(words) equal a brute-force one-word-at-a-time encoding.

Real words: the first 2,000 sentences of CoNLL-2003 train and 1,000 of WikiANN Russian,
for every tokenizer kind: a .model file, a tokenizer.json file, a HF directory with
tokenizer.json, an ALBERT-style directory with only spiece.model, a WordPiece vocab.txt.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.conftest import corpus_path
from tests.tokenization.conftest import conll_sentences, tsv_sentences
from tokstudy.tokenization.base import BOUNDARY
from tokstudy.tokenization.loading import load_tokenizer


@pytest.fixture(scope="module")
def real_words():
    conll = conll_sentences(corpus_path("conll2003") / "eng.train.gz", 2000)
    ru = tsv_sentences(corpus_path("wikiann") / "ru.train.tsv.gz", 1000)
    words = [w for s in conll + ru for w in s]
    assert len(words) > 30000 and any("\u0400" <= ch <= "\u04ff" for ch in words[-1000:][0] + "".join(words[-500:]))
    return words


def _sp_brute(model_file):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(model_file))
    cache = {}

    def encode(word):
        if word not in cache:
            cache[word] = (sp.encode(word, out_type=str), [i == sp.unk_id() for i in sp.encode(word)])
        return cache[word]

    return encode


def _hf_brute(tokenizer):
    cache = {}
    unk_tokens = {"<unk>", "[UNK]"}

    def encode(word):
        if word not in cache:
            enc = tokenizer.encode([word], is_pretokenized=True, add_special_tokens=False)
            unk_ids = {tokenizer.token_to_id(t) for t in unk_tokens} - {None}
            cache[word] = (enc.tokens, [i in unk_ids for i in enc.ids])
        return cache[word]

    return encode


def _check(segmenter, brute, words, *, count_lone_boundary=True):
    seg = segmenter.segment(words)
    assert len(seg) == len(words)
    got = seg.as_lists()
    n_unk = 0
    for i, w in enumerate(words):
        pieces, unk = brute(w) if w else ([], [])
        if not count_lone_boundary and len(pieces) > 1:
            keep = [p != BOUNDARY for p in pieces]
            pieces = [p for p, k in zip(pieces, keep) if k]
            unk = [u for u, k in zip(unk, keep) if k]
        assert got[i] == pieces, (i, w)
        assert seg.unk[seg.offsets[i] : seg.offsets[i + 1]].tolist() == unk, (i, w)
        n_unk += sum(unk)
    assert seg.counts.sum() == len(seg.pieces)
    return seg, n_unk


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe"])
def test_sentencepiece_model_file(trained, real_words, algorithm):
    res = trained(algorithm)[0]
    seg = load_tokenizer(res.path / "spiece.model")
    assert seg.kind == "sentencepiece" and seg.name == "spiece"  # a file is named after itself (issue 33)
    brute = _sp_brute(res.path / "spiece.model")
    _, n_unk = _check(seg, brute, real_words)
    lone = load_tokenizer(res.path / "spiece.model", count_lone_boundary=False)
    seg_off, _ = _check(lone, brute, real_words, count_lone_boundary=False)
    assert n_unk >= 0 and seg_off.counts.min() >= 1  # no non-empty CoNLL word loses all its pieces


def test_trained_directory_loads_sentencepiece(trained, real_words):
    res = trained("sp-unigram")[0]
    seg = load_tokenizer(res.path)
    assert seg.kind == "sentencepiece"
    _check(seg, _sp_brute(res.path / "spiece.model"), real_words[:5000])


def test_albert_style_directory_with_only_spiece_model(trained, real_words, tmp_path):
    res = trained("sp-unigram")[0]
    albert_dir = tmp_path / "albert-like"
    albert_dir.mkdir()
    shutil.copy(res.path / "spiece.model", albert_dir / "spiece.model")
    seg = load_tokenizer(albert_dir)
    assert seg.kind == "sentencepiece" and seg.name == "albert-like"
    _check(seg, _sp_brute(albert_dir / "spiece.model"), real_words[:5000])


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe"])
def test_converted_tokenizer_json_equals_sentencepiece_per_word(trained, real_words, algorithm):
    """The exported tokenizer.json, loaded as an HF segmenter, matches sentencepiece word by word (ids)."""
    import sentencepiece as spm
    from tokenizers import Tokenizer

    res = trained(algorithm)[0]
    hf_seg = load_tokenizer(res.path / "tokenizer.json")
    assert hf_seg.kind == "hf-tokenizers"
    _check(hf_seg, _hf_brute(Tokenizer.from_file(str(res.path / "tokenizer.json"))), real_words)
    sp = spm.SentencePieceProcessor(model_file=str(res.path / "spiece.model"))
    sp_seg = load_tokenizer(res.path / "spiece.model").segment(real_words)
    hf = hf_seg.segment(real_words)
    np.testing.assert_array_equal(hf.offsets, sp_seg.offsets)
    np.testing.assert_array_equal(hf.unk, sp_seg.unk)
    assert [sp.piece_to_id(p) if not u else sp.unk_id() for p, u in zip(hf.pieces, hf.unk)] == [
        sp.piece_to_id(p) if not u else sp.unk_id() for p, u in zip(sp_seg.pieces, sp_seg.unk)
    ]


@pytest.mark.parametrize("algorithm", ["hf-unigram", "hf-bpe", "hf-wordpiece"])
def test_hf_directory(trained, real_words, algorithm):
    from tokenizers import Tokenizer

    res = trained(algorithm)[0]
    seg = load_tokenizer(res.path)
    assert seg.kind == ("wordpiece" if algorithm == "hf-wordpiece" else "hf-tokenizers")
    assert seg.name == res.path.name
    brute = _hf_brute(Tokenizer.from_file(str(res.path / "tokenizer.json")))
    _check(seg, brute, real_words)
    if algorithm != "hf-wordpiece":
        _check(load_tokenizer(res.path, count_lone_boundary=False), brute, real_words, count_lone_boundary=False)


def test_wordpiece_vocab_txt(trained, real_words):
    """A BERT-style vocab.txt, against tokenizers' own BertWordPieceTokenizer one word at a time."""
    from tokenizers.implementations import BertWordPieceTokenizer

    res = trained("hf-wordpiece")[0]
    seg = load_tokenizer(res.path / "vocab.txt")
    assert seg.kind == "wordpiece"
    reference = BertWordPieceTokenizer(str(res.path / "vocab.txt"), unk_token="<unk>", lowercase=False)
    _, n_unk = _check(seg, _hf_brute(reference._tokenizer), real_words)
    # lower-casing, as for an uncased BERT vocabulary
    lower = load_tokenizer(res.path / "vocab.txt", lowercase=True)
    ref_lower = BertWordPieceTokenizer(str(res.path / "vocab.txt"), unk_token="<unk>", lowercase=True)
    _check(lower, _hf_brute(ref_lower._tokenizer), real_words[:5000])


def test_uncased_vocab_guessed(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nwash\n##ing\n##ton\n,\n", encoding="utf-8")
    seg = load_tokenizer(vocab)
    assert seg.segment(["Washington", ",", "Paris"]).as_lists() == [["wash", "##ing", "##ton"], [","], ["[UNK]"]]
    assert seg.segment(["Paris"]).unk.tolist() == [True]
