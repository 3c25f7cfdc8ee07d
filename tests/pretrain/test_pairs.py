"""Segment pairs A/B: SOP/NSP labels, chunking, single-segment and over-long handling, truncation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pretrain.data.pairs import PairBuilder

V = 10_000
WORD_START = np.ones(V, bool)
WORD_START[1::3] = False  # ids = 1 mod 3 continue a word


def make_document(rng, n_segments, lo=3, hi=20, offset=0):
    """Segments with globally unique increasing ids, so any pair can be located in its document."""
    segs, nxt = [], offset
    for _ in range(n_segments):
        n = int(rng.integers(lo, hi))
        segs.append(np.arange(nxt, nxt + n, dtype=np.int32) % V)
        nxt += n
    return segs


def contiguous(x: np.ndarray) -> bool:
    return bool(np.all(np.diff(x) == 1))


def test_sop_labels_balanced_and_meaningful():
    rng = np.random.default_rng(0)
    b = PairBuilder(max_num_tokens=61, word_start=WORD_START, short_seq_prob=0.1)
    labels = []
    for d in range(600):
        doc = make_document(rng, 12, offset=0)
        for a, bb, y in b.pairs(doc, rng):
            assert len(a) >= 1 and len(bb) >= 1 and len(a) + len(bb) <= 61
            # (each side is contiguous text; truncation may remove a few tokens between them)
            assert contiguous(a) and contiguous(bb)
            if y == 0:
                assert a[-1] < bb[0]  # A comes before B in the document
            else:
                assert bb[-1] < a[0]  # swapped
            labels.append(y)
    n, k = len(labels), sum(labels)
    assert n > 1000
    assert stats.binomtest(k, n, 0.5).pvalue > 0.001
    assert b.stats["labels_1"] == k and b.stats["labels_0"] == n - k


def test_chunks_fill_target_and_short_probability():
    rng = np.random.default_rng(1)
    b = PairBuilder(max_num_tokens=125, word_start=WORD_START, short_seq_prob=0.1)
    lengths = []
    for _ in range(200):
        for a, bb, _y in b.pairs(make_document(rng, 40, 5, 30), rng):
            lengths.append(len(a) + len(bb))
    lengths = np.array(lengths)
    # most pairs are (nearly) full: chunks stop at the first segment reaching the target, then are truncated
    assert np.mean(lengths == 125) > 0.75
    share_short = b.stats["short_target_chunks"] / b.stats["chunks"]
    assert share_short == pytest.approx(0.1, abs=0.03)


def test_single_segment_documents_split_at_word_boundary():
    rng = np.random.default_rng(2)
    b = PairBuilder(max_num_tokens=61, word_start=WORD_START, short_seq_prob=0.0)
    labels = []
    for d in range(2000):
        seg = make_document(rng, 1, 2, 40, offset=d * 50)[0]
        pairs = list(b.pairs([seg], rng))
        assert len(pairs) == 1
        a, bb, y = pairs[0]
        first, second = (a, bb) if y == 0 else (bb, a)
        np.testing.assert_array_equal(np.concatenate([first, second]), seg)
        if b.stats["single_segment_split_inside_word"] == 0 or WORD_START[second[0]]:
            assert WORD_START[second[0]] or not WORD_START[seg[1:]].any()
        labels.append(y)
    assert b.stats["single_segment_split"] == 2000
    assert stats.binomtest(sum(labels), len(labels), 0.5).pvalue > 0.001


def test_single_segment_skip_policy_and_one_piece_segments():
    rng = np.random.default_rng(3)
    skip = PairBuilder(max_num_tokens=61, word_start=WORD_START, single_segment="skip")
    assert list(skip.pairs([np.arange(10, 30, dtype=np.int32)], rng)) == []
    assert skip.stats["single_segment_skipped"] == 1
    split = PairBuilder(max_num_tokens=61, word_start=WORD_START)
    assert list(split.pairs([np.array([7], np.int32)], rng)) == []  # one piece cannot be split
    assert split.stats["single_segment_skipped"] == 1
    # a word with no boundary inside: cut between pieces, and counted
    inside = np.array([1, 4, 7, 10], np.int32)  # all continuation pieces
    ((a, bb, _y),) = split.pairs([inside], rng)
    assert sorted(np.concatenate([a, bb]).tolist()) == inside.tolist()
    assert split.stats["single_segment_split_inside_word"] == 1


def test_empty_and_overlong_segments():
    rng = np.random.default_rng(4)
    b = PairBuilder(max_num_tokens=29, word_start=WORD_START, short_seq_prob=0.0)
    long_seg = np.arange(100, 400, dtype=np.int32)  # 300 tokens, ten times the limit
    doc = [np.array([], np.int32), long_seg, np.array([], np.int32), np.arange(500, 510, dtype=np.int32)]
    pairs = list(b.pairs(doc, rng))
    assert b.stats["empty_segments_dropped"] == 2
    assert b.stats["long_segments_cut"] == 1
    assert pairs and all(len(a) + len(bb) <= 29 for a, bb, _ in pairs)
    parts = b.cut_long(long_seg)
    np.testing.assert_array_equal(np.concatenate(parts), long_seg)
    assert all(len(p) <= 29 for p in parts)
    assert all(WORD_START[p[0]] for p in parts[1:])  # cut where a word starts
    # a "word" longer than the limit is cut hard
    no_starts = np.full(70, 1, np.int32)
    assert [len(p) for p in b.cut_long(no_starts)] == [29, 29, 12]
    # documents with nothing at all give nothing
    assert list(b.pairs([], rng)) == [] and list(b.pairs([np.array([], np.int32)], rng)) == []


def reference_truncate(la, lb, max_num_tokens, rng_bits):
    """ALBERT's truncate_seq_pair on lengths, front/back decided by ``rng_bits``."""
    a, b = list(range(la)), list(range(1000, 1000 + lb))
    k = 0
    while len(a) + len(b) > max_num_tokens:
        trunc = a if len(a) > len(b) else b
        if rng_bits[k]:
            del trunc[0]
        else:
            trunc.pop()
        k += 1
    return len(a), len(b)


def test_truncation_matches_reference_lengths():
    rng = np.random.default_rng(5)
    b = PairBuilder(max_num_tokens=20, word_start=WORD_START)
    front = removed = 0
    for _ in range(500):
        la, lb = (int(x) for x in rng.integers(1, 40, 2))
        a, bb, _ = b._truncate(np.arange(la), np.arange(1000, 1000 + lb), 0, rng=rng)
        assert (len(a), len(bb)) == reference_truncate(la, lb, 20, rng.integers(0, 2, 100))
        assert contiguous(a) and contiguous(bb)
        front += int(a[0]) + int(bb[0]) - 1000
        removed += la - len(a) + lb - len(bb)
    # each removal hits the front with probability 1/2
    assert removed > 1000 and stats.binomtest(front, removed, 0.5).pvalue > 0.001


def test_nsp_random_next_from_other_documents():
    rng = np.random.default_rng(6)
    b = PairBuilder(max_num_tokens=61, word_start=WORD_START, task="nsp", short_seq_prob=0.0)
    others = [make_document(rng, 5, offset=5000 + 100 * k) for k in range(20)]
    labels = []
    for d in range(300):
        doc = make_document(rng, 10, offset=0)
        for a, bb, y in b.pairs(doc, rng, random_document=lambda: others[int(rng.integers(0, 20))]):
            assert a.max() < 5000  # A is always from the document
            assert (bb.min() >= 5000) == (y == 1)  # B from another document exactly when label 1
            if y == 0:
                assert a[-1] < bb[0]
            labels.append(y)
    assert stats.binomtest(sum(labels), len(labels), 0.5).pvalue > 0.001
    # without any other document NSP falls back to the real next segment
    b2 = PairBuilder(max_num_tokens=61, word_start=WORD_START, task="nsp")
    ys = [y for _ in range(50) for _, _, y in b2.pairs(make_document(rng, 6), rng, random_document=lambda: None)]
    assert set(ys) == {0} and b2.stats["nsp_no_other_document"] > 0
