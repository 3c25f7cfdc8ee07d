"""A seeded uniform random sample of sentences from a stream, in memory proportional to the sample.

The mALBERT study trained its vocabularies on a random part of its corpus. Reservoir
sampling (Li's "Algorithm L") draws ``k`` sentences uniformly from any number of files
in one streamed pass, without knowing the corpus size in advance and without holding
more than ``k`` sentences. The sample is returned in corpus order, so the same seed and
the same files always give the same list.

>>> sample_sentences(iter(["a", "b", "c", "d"]), 2, seed=0)
['a', 'd']
"""

from __future__ import annotations

import math
import random
from typing import Iterable


def sample_sentences(
    sentences: Iterable[str],
    k: int | None,
    *,
    seed: int = 0,
    progress: bool = False,
) -> list[str]:
    """``k`` sentences drawn uniformly without replacement (all of them if ``k`` is 0/None or larger).

    Args:
        sentences: any iterable, e.g. :func:`tokstudy.data.rawtext.iter_sentences`.
        k: sample size.
        seed: seeds the draw; same seed + same input = same sample.
        progress: show a tqdm counter of sentences read.
    """
    if progress:
        from tqdm.auto import tqdm  # deferred: ~90 ms to import, and only with a progress bar

        sentences = tqdm(sentences, desc="sampling sentences", unit=" sent", mininterval=0.5)
    if not k:
        return list(sentences)
    if k < 0:
        raise ValueError(f"sample size must be >= 0, got {k}")
    rng = random.Random(seed)
    reservoir: list[tuple[int, str]] = []
    it = iter(sentences)
    for i, s in enumerate(it):
        reservoir.append((i, s))
        if i + 1 == k:
            break
    else:
        return [s for _, s in reservoir]
    # Algorithm L: jump straight to the next sentence that enters the reservoir
    w = math.exp(math.log(_open01(rng)) / k)
    next_i = k + int(math.log(_open01(rng)) / math.log1p(-w))
    i = k
    for s in it:
        if i == next_i:
            reservoir[rng.randrange(k)] = (i, s)
            w *= math.exp(math.log(_open01(rng)) / k)
            next_i += int(math.log(_open01(rng)) / math.log1p(-w)) + 1
        i += 1
    reservoir.sort()
    return [s for _, s in reservoir]


def _open01(rng: random.Random) -> float:
    """A uniform draw in (0, 1): ``log(0)`` must never happen."""
    u = rng.random()
    while u == 0.0:
        u = rng.random()
    return u
