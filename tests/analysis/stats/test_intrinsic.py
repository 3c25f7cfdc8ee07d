"""Intrinsic metrics against a hand computation and the tokenization-scorer package."""

import math

import numpy as np
import pytest

from tokstudy.analysis.stats.intrinsic import (
    per_piece,
    renyi_efficiency,
    renyi_entropy,
    shannon_entropy,
    vocab_utilization,
)


def test_hand_computed_example():
    counts = np.array([2, 1, 1, 0])  # p = 1/2, 1/4, 1/4
    assert shannon_entropy(counts) == pytest.approx(1.5)
    # H_2 = -log2(1/4 + 1/16 + 1/16) = -log2(3/8)
    assert renyi_entropy(counts, alpha=2.0) == pytest.approx(-math.log2(3 / 8))
    assert renyi_efficiency(counts, vocab_size=4, alpha=2.0) == pytest.approx(-math.log2(3 / 8) / 2)
    assert renyi_entropy(counts, alpha=1.0) == pytest.approx(1.5)
    assert vocab_utilization(counts, vocab_size=4) == 0.75
    assert per_piece(10, 4) == 2.5


def test_uniform_distribution_has_efficiency_one():
    counts = np.full(16, 7)
    for alpha in (0.5, 1.0, 2.5, 3.0):
        assert renyi_efficiency(counts, vocab_size=16, alpha=alpha) == pytest.approx(1.0)


def test_merging_partitions_by_adding_counts_is_exact():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 50, 100), rng.integers(0, 50, 100)
    whole = a + b
    assert shannon_entropy(whole) == pytest.approx(shannon_entropy(np.concatenate([a, b]).reshape(2, -1).sum(0)))


def test_empty_and_invalid_inputs():
    assert math.isnan(shannon_entropy(np.zeros(3)))
    assert math.isnan(per_piece(3, 0))
    with pytest.raises(ValueError):
        shannon_entropy(np.array([1, -1]))
    with pytest.raises(ValueError):
        vocab_utilization(np.ones(5), vocab_size=3)
    with pytest.raises(ValueError):
        renyi_efficiency(np.ones(5), vocab_size=1)


@pytest.mark.parametrize("alpha", [2.5, 3.0])
def test_equals_tokenization_scorer(alpha, capsys):
    metrics = pytest.importorskip("tokenization_scorer.metrics", reason="tokenization-scorer is a test dependency")
    rng = np.random.default_rng(1)
    vocab = 300
    pieces = [[f"p{int(i)}" for i in rng.zipf(1.3, size=rng.integers(5, 40)) % vocab] for _ in range(200)]
    counts = np.zeros(vocab)
    for line in pieces:
        for piece in line:
            counts[int(piece[1:])] += 1
    ref_entropy = metrics.get_metric("shannon_entropy")(pieces)
    ref_eff = metrics.get_metric("renyi_efficiency")(pieces, power=alpha, vocab=vocab)
    assert shannon_entropy(counts) == pytest.approx(ref_entropy, rel=1e-12)
    assert renyi_efficiency(counts, vocab_size=vocab, alpha=alpha) == pytest.approx(ref_eff, rel=1e-12)
