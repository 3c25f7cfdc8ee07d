"""Whole-word n-gram masking on real text: rate, whole words, n-gram lengths, 80/10/10, specials untouched."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

from pretrain.data.documents import split_sentences
from pretrain.data.masking import NgramMasker, is_word_start_piece
from pretrain.data.pairs import PairBuilder
from pretrain.data.tokenizer_tables import load_tokenizer_tables
from tests.conftest import corpus_path
from tests.pretrain.test_prepare import multilingual_tokenizer
from tokstudy.data.rawtext import read_raw_text

MAX_PRED = 20


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    sp, tables = load_tokenizer_tables(multilingual_tokenizer(tmp_path_factory))
    docs = []
    for d in read_raw_text(corpus_path("raw_text_large") / "en.txt.gz"):
        docs.append(
            [np.asarray(x, np.int32) for x in sp.encode([s for line in d.lines for s in split_sentences(line)])]
        )
        if len(docs) == 40:
            break
    builder = PairBuilder(max_num_tokens=125, word_start=tables.word_start)
    rng = np.random.default_rng(0)
    examples = []  # (tokens, b_start)
    sid = tables.special_ids
    for doc in docs:
        for a, b, _ in builder.pairs(doc, rng):
            examples.append(
                (np.concatenate([[sid["cls"]], a, [sid["sep"]], b, [sid["sep"]]]).astype(np.int32), len(a) + 2)
            )
    masker = NgramMasker(
        word_start=tables.word_start, mask_id=sid["mask"], random_ids=tables.random_ids, max_predictions=MAX_PRED
    )
    results = [masker.mask(t, b_start=b, rng=rng) for t, b in examples]
    return sp, tables, masker, examples, results


def test_enough_real_examples(setup):
    _, _, _, examples, _ = setup
    assert len(examples) > 2000


def test_masking_rate_and_positions(setup):
    _, tables, masker, examples, results = setup
    sid = tables.special_ids
    full = 0
    total_tokens = total_masked = 0
    for (tokens, b), r in zip(examples, results):
        n = len(tokens)
        assert np.all(np.diff(r.positions) > 0)  # sorted, unique
        assert not set(r.positions.tolist()) & {0, b - 1, n - 1}  # never [CLS] or [SEP]
        np.testing.assert_array_equal(r.labels, tokens[r.positions])
        np.testing.assert_array_equal(r.input_ids[[0, b - 1, n - 1]], [sid["cls"], sid["sep"], sid["sep"]])
        untouched = np.setdiff1d(np.arange(n), r.positions)
        np.testing.assert_array_equal(r.input_ids[untouched], tokens[untouched])
        assert len(r.positions) <= masker.budget(n) <= MAX_PRED
        full += len(r.positions) == masker.budget(n)
        total_tokens += n
        total_masked += len(r.positions)
    assert full / len(examples) > 0.98
    # 15 % of tokens, a little less where the cap of 20 binds (20 / 128 = 15.6 %, rounded budgets)
    assert total_masked / total_tokens == pytest.approx(0.15, abs=0.007)


def word_spans(tokens, b, word_start):
    """Independent recount of words: a word starts at a start piece or right after a special token."""
    n = len(tokens)
    special = {0, b - 1, n - 1}
    spans, cur = [], None
    for i in range(n):
        if i in special:
            if cur:
                spans.append(cur)
            cur = None
            continue
        if cur is None or word_start[tokens[i]]:
            if cur:
                spans.append(cur)
            cur = [i]
        else:
            cur.append(i)
    if cur:
        spans.append(cur)
    return spans


def test_whole_words_only(setup):
    _, tables, _, examples, results = setup
    partial = 0
    for (tokens, b), r in zip(examples[:800], results[:800]):
        masked = set(r.positions.tolist())
        for span in word_spans(tokens, b, tables.word_start):
            k = sum(i in masked for i in span)
            partial += 0 < k < len(span)
        # chosen n-grams add up to the masked tokens
        assert sum(r.ngram_lengths) <= len(masked)
    assert partial == 0


def test_ngram_lengths_follow_inverse_n(setup):
    *_, results = setup
    drawn = np.bincount([n for r in results for n in r.ngram_draws], minlength=4)[1:]
    p = 1 / np.arange(1, 4)
    p /= p.sum()
    assert drawn.sum() > 10000
    assert stats.chisquare(drawn, drawn.sum() * p).pvalue > 0.001
    chosen = np.bincount([n for r in results for n in r.ngram_lengths], minlength=4)[1:]
    share = chosen / chosen.sum()
    # the chosen lengths lean shorter (budget and overlaps), but keep the 1/n ordering
    assert share[0] > share[1] > share[2] > 0.05


def test_replacement_80_10_10(setup):
    _, tables, _, _, results = setup
    sid = tables.special_ids
    specials = set(sid.values())
    kinds = np.concatenate([r.replaced for r in results])
    n = len(kinds)
    assert n > 30000
    for kind, p in ((0, 0.8), (1, 0.1), (2, 0.1)):
        assert stats.binomtest(int((kinds == kind).sum()), n, p).pvalue > 0.001, kind
    for r in results:
        new = r.input_ids[r.positions]
        np.testing.assert_array_equal(new[r.replaced == 0], sid["mask"])
        np.testing.assert_array_equal(new[r.replaced == 2], r.labels[r.replaced == 2])
        rand = new[r.replaced == 1]
        assert not set(rand.tolist()) & specials
        assert np.isin(rand, tables.random_ids).all()


def reference_ngram_lengths(tokens, pieces, max_pred, rng, nprng, ngram=3, prob=0.15):
    """ALBERT's create_masked_lm_predictions (whole-word n-grams), returning the chosen n-gram lengths."""
    cand = []
    for i, t in enumerate(pieces):
        if t in ("[CLS]", "[SEP]"):
            continue
        if cand and not is_word_start_piece(t):
            cand[-1].append(i)
        else:
            cand.append([i])
    num_to_predict = min(max_pred, max(1, int(round(len(tokens) * prob))))
    ngrams = np.arange(1, ngram + 1)
    pvals = 1.0 / np.arange(1, ngram + 1)
    pvals /= pvals.sum()
    ngram_indexes = [[cand[idx : idx + n] for n in ngrams] for idx in range(len(cand))]
    rng.shuffle(ngram_indexes)
    covered, masked, lengths = set(), 0, []
    for cset in ngram_indexes:
        if masked >= num_to_predict:
            break
        n = nprng.choice(ngrams[: len(cset)], p=pvals[: len(cset)] / pvals[: len(cset)].sum())
        index_set = sum(cset[n - 1], [])
        n -= 1
        while masked + len(index_set) > num_to_predict:
            if n == 0:
                break
            index_set = sum(cset[n - 1], [])
            n -= 1
        if masked + len(index_set) > num_to_predict or any(i in covered for i in index_set):
            continue
        covered.update(index_set)
        masked += len(index_set)
        lengths.append(len(cset[n]))  # words actually taken (fewer than n at the end of the sequence)
    return lengths


def test_chosen_lengths_match_reference_algorithm(setup):
    sp, _, _, examples, results = setup
    rng, nprng = random.Random(0), np.random.RandomState(0)
    ref = []
    for tokens, _b in examples[:1500]:
        pieces = [sp.id_to_piece(int(t)) for t in tokens]
        ref += reference_ngram_lengths(tokens, pieces, MAX_PRED, rng, nprng)
    ours = [n for r in results[:1500] for n in r.ngram_lengths]
    ref_share = np.bincount(ref, minlength=4)[1:] / len(ref)
    our_share = np.bincount(ours, minlength=4)[1:] / len(ours)
    # the reference lets n-grams cross [SEP]; otherwise the same procedure
    np.testing.assert_allclose(our_share, ref_share, atol=0.02)


def test_word_start_pieces():
    assert is_word_start_piece("▁New") and not is_word_start_piece("York")
    assert is_word_start_piece("。") and is_word_start_piece("漢") and is_word_start_piece("カ")
    assert is_word_start_piece("(") and is_word_start_piece("<unk>")
    assert not is_word_start_piece("é")


def test_small_examples_and_budget():
    word_start = np.ones(20, bool)
    m = NgramMasker(word_start=word_start, mask_id=4, random_ids=np.arange(5, 20), max_predictions=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        r = m.mask(np.array([2, 7, 3, 8, 3]), b_start=3, rng=rng)  # [CLS] a [SEP] b [SEP]
        assert len(r.positions) == 1 and r.positions[0] in (1, 3)
    assert m.budget(1000) == 3 and m.budget(5) == 1
    with pytest.raises(ValueError, match="random_ids is empty"):
        NgramMasker(word_start=word_start, mask_id=4, random_ids=np.array([], int), max_predictions=3)
