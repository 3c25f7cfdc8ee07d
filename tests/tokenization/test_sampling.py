"""Reservoir sampling: seeded, uniform, memory bounded by the sample."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

from tokstudy.tokenization.sampling import sample_sentences


def test_reproducible_by_seed_and_in_corpus_order():
    lines = [f"s{i}" for i in range(1000)]
    a = sample_sentences(iter(lines), 50, seed=3)
    assert a == sample_sentences(iter(lines), 50, seed=3)
    assert a != sample_sentences(iter(lines), 50, seed=4)
    assert len(a) == len(set(a)) == 50
    assert a == sorted(a, key=lambda s: int(s[1:]))


def test_small_corpus_and_all():
    assert sample_sentences(iter(["a", "b"]), 5, seed=0) == ["a", "b"]
    assert sample_sentences(iter(["a", "b"]), 0) == ["a", "b"]
    assert sample_sentences(iter(["a", "b"]), None) == ["a", "b"]
    assert sample_sentences(iter([]), 3) == []


def test_uniform_inclusion_frequencies():
    """Each of 40 items should be drawn with probability k/n = 1/4 (chi-square-free tolerance check)."""
    n, k, trials = 40, 10, 4000
    counts = Counter()
    for seed in range(trials):
        counts.update(sample_sentences(map(str, range(n)), k, seed=seed))
    expected = trials * k / n  # 1000; sd ~ 27
    assert len(counts) == n
    assert all(abs(c - expected) < 6 * 27.4 for c in counts.values()), sorted(counts.values())
    # first and last positions are not favoured
    first = sum(counts[str(i)] for i in range(10))
    last = sum(counts[str(i)] for i in range(30, 40))
    assert abs(first - last) < 0.08 * first


_RSS_SCRIPT = """
import resource, sys
from tokstudy.tokenization.sampling import sample_sentences
n = int(sys.argv[1])
lines = ("x" * 200 + str(i) for i in range(n))   # generated: never held in memory
s = sample_sentences(lines, 2000, seed=0)
assert len(s) == 2000
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_memory_does_not_grow_with_corpus():
    def peak_kib(n):
        out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, str(n)], capture_output=True, text=True, check=True)
        return int(out.stdout.strip())

    small, large = peak_kib(20_000), peak_kib(400_000)  # 20x the stream, ~4 MB vs ~80 MB of text
    assert large - small < 8 * 1024, (small, large)
