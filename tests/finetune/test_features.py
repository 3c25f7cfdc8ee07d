"""Word alignment and windowing, checked against per-word encoding and brute-force invariants."""

from __future__ import annotations

import random

import pytest

from pretrain.finetune.features import IGNORE, plan_windows, sentence_inputs, token_windows, word_pieces
from tests.conftest import corpus_path


@pytest.fixture(scope="module")
def tok(tiny_model):
    from pretrain.finetune.modeling import load_tokenizer

    return load_tokenizer(tiny_model)


def test_plan_windows_tiles_every_word_once_within_capacity():
    rng = random.Random(0)
    for _ in range(2000):
        lengths = [rng.choice([1, 1, 1, 2, 3, 7]) for _ in range(rng.randint(0, 40))]
        capacity, stride = rng.randint(1, 20), rng.randint(0, 6)
        plan = plan_windows(lengths, capacity=capacity, stride=stride)
        owned = [w for _, a, b in plan for w in range(a, b)]
        assert owned == list(range(len(lengths)))  # each word owned exactly once, in order
        for ctx, a, b in plan:
            assert ctx <= a < b
            assert sum(lengths[ctx:a]) <= stride
            # a window overflows only when it owns one single word that is longer than a window
            assert sum(lengths[ctx:b]) <= capacity or (b - a == 1 and ctx == a and lengths[a] > capacity)


def test_word_pieces_equal_per_word_encoding_on_real_sentences(tok):
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    ds = load_dataset("conll2003", "dev")
    sents = [list(s.words) for s in ds.sentences[:300]]
    got = word_pieces(tok, sents, chunk=64)
    for s, words in enumerate(sents):
        expected = [tok(w, add_special_tokens=False)["input_ids"] for w in words]
        assert got[s] == [e if e else [tok.unk_token_id] for e in expected]


def test_words_without_pieces_get_the_unknown_piece(tok):
    words = ["play", "", "\u200b", "abba", " "]
    pieces = word_pieces(tok, [words, []])
    assert len(pieces[0]) == len(words) and pieces[1] == []
    for i in (1, 2, 4):
        assert pieces[0][i] == [tok.unk_token_id]
    assert pieces[0][0] == tok("play", add_special_tokens=False)["input_ids"]


def test_first_piece_labels_and_all_pieces_option():
    pieces = [[[10], [11, 12, 13], [14, 15]]]
    labels = [[1, 2, 3]]
    (w,) = token_windows(pieces, labels, cls_id=2, sep_id=3, max_length=16, stride=4)
    assert w.input_ids == (2, 10, 11, 12, 13, 14, 15, 3)
    assert w.labels == (IGNORE, 1, 2, IGNORE, IGNORE, 3, IGNORE, IGNORE)
    assert w.first == ((0, 1), (1, 2), (2, 5))
    (w,) = token_windows(pieces, labels, cls_id=2, sep_id=3, max_length=16, stride=4, label_all_pieces=True)
    assert w.labels == (IGNORE, 1, 2, 2, 2, 3, 3, IGNORE)


def test_long_sentence_windows_label_each_word_once():
    rng = random.Random(1)
    words = [[100 + i] * rng.randint(1, 3) for i in range(60)]
    labels = [[i % 5 for i in range(60)]]
    wins = token_windows([words], labels, cls_id=2, sep_id=3, max_length=12, stride=3)
    assert len(wins) > 1 and all(len(w) <= 12 for w in wins)
    labelled = [w_ for w in wins for w_, _ in w.first]
    assert labelled == list(range(60))
    for w in wins:  # the loss sees exactly the owned words' first pieces
        assert sum(l != IGNORE for l in w.labels) == len(w.first)
        for word, pos in w.first:
            assert w.input_ids[pos] == words[word][0] and w.labels[pos] == word % 5


def test_sentence_inputs_flag_truncation():
    items = sentence_inputs([[[5, 6], [7]], [[8] * 20]], [0, 1], cls_id=2, sep_id=3, max_length=8)
    assert items[0].input_ids == (2, 5, 6, 7, 3) and not items[0].truncated and items[0].label == 0
    assert len(items[1]) == 8 and items[1].truncated
