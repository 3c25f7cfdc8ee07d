"""Intrinsic tokenizer metrics: pure functions over the unigram distribution of pieces.

These are the figures tokenizer-only studies report (Zouhar et al. 2023, "Tokenization and the
Noiseless Channel", ACL; TokEval), computed from how often each piece occurs when a tokenizer
segments a corpus:

* **Shannon entropy** ``H(p) = -sum_i p_i log2 p_i`` in bits, over the pieces that occur;
* **Rényi entropy** of order ``alpha`` ``H_a(p) = log2(sum_i p_i^a) / (1 - a)`` (Shannon at a = 1);
* **Rényi efficiency** ``H_a(p) / log2 |V|`` with ``|V|`` the tokenizer's vocabulary size (Zouhar et al.
  use a = 2.5, the default here); 1 means every piece of the vocabulary is used equally often;
* **vocabulary utilisation** = pieces of the vocabulary that occur at least once / ``|V|``;
* **compression**: characters (or UTF-8 bytes) of the segmented words per piece.

Counts are the only input, so the functions merge over partitions by adding counts: the same
figure comes out whatever the partitioning (what streamed and distributed statistics rely on).

>>> counts = np.array([2, 1, 1, 0])           # piece id -> occurrences; a vocabulary of 4
>>> round(shannon_entropy(counts), 3)
1.5
>>> round(renyi_efficiency(counts, vocab_size=4, alpha=2.0), 3)
0.708
>>> vocab_utilization(counts, vocab_size=4)
0.75
"""

from __future__ import annotations

import numpy as np

DEFAULT_RENYI_ALPHA = 2.5


def _probabilities(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1:
        raise ValueError(f"counts must be one-dimensional, got shape {counts.shape}")
    if np.any(counts < 0):
        raise ValueError("counts must be non-negative")
    total = counts.sum()
    if total <= 0:
        return np.empty(0)
    p = counts[counts > 0] / total
    return p


def shannon_entropy(counts) -> float:
    """Shannon entropy in bits of the piece distribution (NaN when no piece occurs)."""
    p = _probabilities(counts)
    if p.size == 0:
        return float("nan")
    return float(-(p * np.log2(p)).sum())


def renyi_entropy(counts, *, alpha: float = DEFAULT_RENYI_ALPHA) -> float:
    """Rényi entropy of order ``alpha`` in bits; ``alpha = 1`` is Shannon's."""
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    p = _probabilities(counts)
    if p.size == 0:
        return float("nan")
    if alpha == 1:
        return shannon_entropy(counts)
    return float(np.log2((p**alpha).sum()) / (1.0 - alpha))


def renyi_efficiency(counts, *, vocab_size: int, alpha: float = DEFAULT_RENYI_ALPHA) -> float:
    """Rényi entropy of order ``alpha`` divided by ``log2(vocab_size)`` (Zouhar et al. 2023)."""
    if vocab_size < 2:
        raise ValueError(f"vocab_size must be >= 2, got {vocab_size}")
    return renyi_entropy(counts, alpha=alpha) / float(np.log2(vocab_size))


def vocab_utilization(counts, *, vocab_size: int) -> float:
    """Share of the vocabulary's pieces that occur at least once."""
    if vocab_size < 1:
        raise ValueError(f"vocab_size must be >= 1, got {vocab_size}")
    used = int(np.count_nonzero(np.asarray(counts)))
    if used > vocab_size:
        raise ValueError(f"{used} distinct pieces occur but the vocabulary has only {vocab_size}")
    return used / vocab_size


def per_piece(units: float, pieces: float) -> float:
    """Compression: characters or UTF-8 bytes per piece (NaN without pieces)."""
    return float(units) / float(pieces) if pieces else float("nan")
