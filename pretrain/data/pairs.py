"""Segment pairs A/B from tokenized documents, as ALBERT's ``create_instances_from_document``.

Consecutive segments (sentences) of a document fill a chunk up to a target length
(``max_seq_length - 3``; with probability ``short_seq_prob`` a random length in
``[2, max_num_tokens]``). The chunk is cut into A and B at a random segment boundary.

* SOP (default): with probability 0.5 A and B are swapped, label 1 (= "swapped", the meaning of
  transformers' ``sentence_order_label``); otherwise label 0.
* NSP: with probability 0.5 B is replaced by text from another document (label 1); the unused
  segments of the chunk are put back, as the reference does. The other document comes from a
  bounded buffer of recent documents of the same language (the reference holds the whole corpus).

Deliberate differences from the reference, each counted in the store's ``stats``:

* Single-segment chunks (most of ``raw_text`` is one sentence per document). The reference
  gives them a random B, under SOP too, so its NSP labels lean towards 1. Here,
  ``single_segment="split"`` cuts the segment at a random word boundary (a piece boundary when it
  is one word) into A and B, then applies the SOP swap or the NSP draw like any chunk, so labels
  stay balanced; a one-piece segment is skipped. ``"skip"`` drops every single-segment chunk.
* A segment longer than ``max_num_tokens`` is cut into parts at word boundaries first, so it is
  not thrown away by truncation.
* The short target length is redrawn for every chunk, not once per document, so the share of
  short examples is 10 % even on a corpus of a few long documents.

Pairs still too long are truncated as the reference does: the longer side loses one token at
a time, from its front or back at random (here the counts are drawn at once, same distribution).

>>> import numpy as np
>>> b = PairBuilder(max_num_tokens=5, word_start=np.ones(10, bool), short_seq_prob=0.0)
>>> rng = np.random.default_rng(1)
>>> [(a.tolist(), bb.tolist(), y) for a, bb, y in b.pairs([np.array([5, 6]), np.array([7, 8, 9])], rng)]
[([5, 6], [7, 8, 9], 0)]
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterator, Sequence

import numpy as np

Pair = tuple[np.ndarray, np.ndarray, int]


class PairBuilder:
    """Turns one tokenized document (a list of int arrays, one per segment) into (A, B, label) pairs.

    Args:
        max_num_tokens: tokens for A and B together (``max_seq_length - 3``).
        word_start: bool per vocabulary id: does the piece begin a word (where segments may be cut).
        short_seq_prob: probability of a shorter random target length.
        task: ``sop`` or ``nsp``.
        single_segment: ``split`` or ``skip`` (see the module docstring).

    ``stats`` counts chunks, splits, skips, truncations and labels across calls.
    """

    def __init__(
        self,
        *,
        max_num_tokens: int,
        word_start: np.ndarray,
        short_seq_prob: float = 0.1,
        task: str = "sop",
        single_segment: str = "split",
    ):
        self.max_num_tokens = int(max_num_tokens)
        self.word_start = np.asarray(word_start, dtype=bool)
        self.short_seq_prob = float(short_seq_prob)
        self.task = task
        self.single_segment = single_segment
        self.stats: Counter = Counter()

    def _target(self, rng: np.random.Generator) -> int:
        if rng.random() < self.short_seq_prob:
            self.stats["short_target_chunks"] += 1
            return int(rng.integers(2, self.max_num_tokens + 1))
        return self.max_num_tokens

    def cut_long(self, segment: np.ndarray) -> list[np.ndarray]:
        """Parts of at most ``max_num_tokens`` pieces, cut at the last word start that fits."""
        parts = []
        limit = self.max_num_tokens
        while len(segment) > limit:
            starts = np.flatnonzero(self.word_start[segment[1 : limit + 1]]) + 1
            cut = int(starts[-1]) if len(starts) else limit
            parts.append(segment[:cut])
            segment = segment[cut:]
        parts.append(segment)
        return parts

    def prepare_segments(self, segments: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Drop empty segments (nothing left after normalisation) and cut over-long ones."""
        out: list[np.ndarray] = []
        for seg in segments:
            if len(seg) == 0:
                self.stats["empty_segments_dropped"] += 1
            elif len(seg) > self.max_num_tokens:
                self.stats["long_segments_cut"] += 1
                out.extend(self.cut_long(seg))
            else:
                out.append(seg)
        return out

    def pairs(
        self,
        segments: Sequence[np.ndarray],
        rng: np.random.Generator,
        random_document: Callable[[], Sequence[np.ndarray] | None] | None = None,
    ) -> Iterator[Pair]:
        """(A, B, label) pairs of one document; ``random_document`` gives another document (NSP)."""
        doc = self.prepare_segments(segments)
        target = self._target(rng)
        chunk: list[np.ndarray] = []
        current = 0
        i = 0
        while i < len(doc):
            chunk.append(doc[i])
            current += len(doc[i])
            if i == len(doc) - 1 or current >= target:
                self.stats["chunks"] += 1
                pair, unused = self._pair(chunk, target, rng, random_document)
                i -= unused
                if pair is not None:
                    yield self._truncate(*pair, rng=rng)
                chunk, current = [], 0
                target = self._target(rng)
            i += 1

    def _pair(self, chunk, target, rng, random_document) -> tuple[tuple | None, int]:
        """The pair of one chunk and how many of its segments go back to the document."""
        split = len(chunk) == 1
        if split:
            if self.single_segment == "skip" or len(chunk[0]) < 2:
                self.stats["single_segment_skipped"] += 1
                return None, 0
            chunk = self._split_single(chunk[0], rng)
            a_end = 1
        else:
            a_end = int(rng.integers(1, len(chunk)))
        a = np.concatenate(chunk[:a_end])
        if self.task == "nsp" and rng.random() < 0.5:
            b = self._random_b(target - len(a), rng, random_document)
            if b is not None:
                self.stats["labels_1"] += 1
                # the unused segments start the next chunk (not the unused half of a split segment)
                return (a, b, 1), 0 if split else len(chunk) - a_end
            self.stats["nsp_no_other_document"] += 1
        b = np.concatenate(chunk[a_end:])
        if self.task == "sop" and rng.random() < 0.5:
            self.stats["labels_1"] += 1
            return (b, a, 1), 0
        self.stats["labels_0"] += 1
        return (a, b, 0), 0

    def _split_single(self, seg: np.ndarray, rng) -> list[np.ndarray]:
        """Two parts of a segment of >= 2 pieces, cut at a random word start (a piece boundary if none)."""
        cuts = np.flatnonzero(self.word_start[seg[1:]]) + 1
        if len(cuts) == 0:
            cuts = np.arange(1, len(seg))
            self.stats["single_segment_split_inside_word"] += 1
        self.stats["single_segment_split"] += 1
        cut = int(cuts[rng.integers(0, len(cuts))])
        return [seg[:cut], seg[cut:]]

    def _random_b(self, target_b, rng, random_document) -> np.ndarray | None:
        other = random_document() if random_document is not None else None
        if not other:
            return None
        target_b = max(1, target_b)
        start = int(rng.integers(0, len(other)))
        parts, n = [], 0
        for seg in other[start:]:
            parts.append(seg)
            n += len(seg)
            if n >= target_b:
                break
        return np.concatenate(parts)

    def _truncate(self, a: np.ndarray, b: np.ndarray, label: int, *, rng) -> Pair:
        la, lb = len(a), len(b)
        excess = la + lb - self.max_num_tokens
        if excess <= 0:
            return a, b, label
        self.stats["pairs_truncated"] += 1
        # the reference removes one token at a time from the longer side (B on ties), from its front
        # or back at random: the final lengths are fixed, and the front count of each side is binomial
        ra = rb = 0
        while la - ra + lb - rb > self.max_num_tokens:
            if la - ra > lb - rb:
                ra += 1
            else:
                rb += 1
        fa = int(rng.binomial(ra, 0.5)) if ra else 0
        fb = int(rng.binomial(rb, 0.5)) if rb else 0
        return a[fa : la - (ra - fa)], b[fb : lb - (rb - fb)], label
