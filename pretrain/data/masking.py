"""Whole-word n-gram masking, as ALBERT's ``create_masked_lm_predictions`` (static, done once at prepare time).

A word is a piece that starts one (``▁`` prefix, punctuation, or a CJK/kana character, which
stand alone because those scripts have no spaces) and the pieces after it. In random order,
each word starts a candidate n-gram of n whole words, n drawn with P(n) proportional to 1/n
(renormalised over the n that fit in the word's segment: n-grams never cross [SEP]). A
candidate too large for the remaining budget is shortened, then skipped; one overlapping
earlier choices is skipped. The budget is ``min(max_predictions, max(1, round(0.15 * length)))``
tokens. Each chosen token independently becomes [MASK] (80 %), a random non-special piece
(10 %) or stays (10 %). [CLS] and [SEP] are never candidates.

>>> import numpy as np
>>> m = NgramMasker(word_start=np.array([0, 0, 0, 0, 0, 1, 1, 0], bool), mask_id=4,
...                 random_ids=np.array([5, 6, 7]), max_predictions=2, masked_lm_prob=0.5)
>>> r = m.mask(np.array([2, 5, 7, 3, 6, 5, 3]), b_start=4, rng=np.random.default_rng(0))
>>> r.positions.tolist(), r.labels.tolist()
([4, 5], [6, 5])
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

_PUNCT = set("!\"#$%&'()*+,-./:;?@[\\]^_`{|}~")


def is_word_start_piece(piece: str) -> bool:
    """Whether a sentencepiece piece begins a word (ALBERT's ``is_start_piece`` plus CJK characters).

    >>> [is_word_start_piece(p) for p in ["▁the", "ing", ",", "東", "<unk>"]]
    [True, False, True, True, True]
    """
    if not piece:
        return True
    first = piece[0]
    if first == "▁" or first == "<" or piece in _PUNCT or first in _PUNCT:
        return True
    # No spaces in these scripts: every character-level piece stands as its own "word".
    name = unicodedata.name(first, "")
    return name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL")) or unicodedata.category(first).startswith("P")


@dataclass(frozen=True)
class MaskResult:
    """One masked example.

    Attributes:
        input_ids: the tokens with replacements applied (a copy).
        positions: sorted positions of the masked tokens.
        labels: their original ids.
        ngram_lengths: the length, in words, of every chosen n-gram (after shortening to fit the budget).
        ngram_draws: n as drawn, for every candidate that had all of 1..max_ngram words available
            (exactly P(n) proportional to 1/n; the chosen lengths lean shorter, as in the reference,
            because long candidates more often overlap earlier ones or overflow the budget).
        replaced: per position 0 = [MASK], 1 = random piece, 2 = unchanged.
    """

    input_ids: np.ndarray
    positions: np.ndarray
    labels: np.ndarray
    ngram_lengths: list[int]
    ngram_draws: list[int]
    replaced: np.ndarray


class NgramMasker:
    """Masks examples ``[CLS] A [SEP] B [SEP]``; tables are built once per tokenizer.

    Args:
        word_start: bool per vocabulary id: does that piece begin a word.
        mask_id: id of [MASK].
        random_ids: ids a random replacement is drawn from (no special or control pieces).
        max_predictions, masked_lm_prob, max_ngram, mask_token_prob, random_token_prob: as in PrepareConfig.
    """

    def __init__(
        self,
        *,
        word_start: np.ndarray,
        mask_id: int,
        random_ids: np.ndarray,
        max_predictions: int,
        masked_lm_prob: float = 0.15,
        max_ngram: int = 3,
        mask_token_prob: float = 0.8,
        random_token_prob: float = 0.1,
    ):
        if len(random_ids) == 0:
            raise ValueError("random_ids is empty: the vocabulary has no ordinary pieces")
        self.word_start = np.asarray(word_start, dtype=bool)
        self.mask_id = int(mask_id)
        self.random_ids = np.asarray(random_ids, dtype=np.int32)
        self.max_predictions = int(max_predictions)
        self.masked_lm_prob = float(masked_lm_prob)
        self.max_ngram = int(max_ngram)
        self.mask_token_prob = float(mask_token_prob)
        self.random_token_prob = float(random_token_prob)
        p = 1.0 / np.arange(1, self.max_ngram + 1)
        # cdfs[m - 1]: the cumulative distribution of n over 1..m (n-grams that fit in m words)
        self._cdfs = [np.cumsum(p[:m]) / p[:m].sum() for m in range(1, self.max_ngram + 1)]

    def budget(self, length: int) -> int:
        """How many tokens an example of ``length`` tokens gets masked."""
        return min(self.max_predictions, max(1, int(round(length * self.masked_lm_prob))))

    def mask(self, tokens: np.ndarray, *, b_start: int, rng: np.random.Generator) -> MaskResult:
        """Mask ``tokens`` (``[CLS] A [SEP] B [SEP]``, no padding; B starts at ``b_start``)."""
        tokens = np.asarray(tokens)
        length = len(tokens)
        # word starts, then the first piece after each special token also opens a word
        starts_mask = self.word_start[tokens]
        starts_mask[[1, b_start]] = True
        starts_mask[[0, b_start - 1, length - 1]] = False
        starts = np.flatnonzero(starts_mask)
        word_end = np.empty_like(starts)  # exclusive end of each word (next start or the [SEP])
        word_end[:-1] = starts[1:]
        word_end[-1] = length - 1
        word_end = np.where((starts < b_start - 1) & (word_end > b_start - 1), b_start - 1, word_end)
        in_b = starts >= b_start
        n_a = int((~in_b).sum())
        seg_last = np.where(in_b, len(starts), n_a)  # exclusive index of the segment's last word
        num_words = len(starts)

        budget = self.budget(length)
        order = rng.permutation(num_words)
        draws = rng.random(num_words)
        covered = np.zeros(length, dtype=bool)
        chosen: list[tuple[int, int]] = []
        ngrams: list[int] = []
        draws_full: list[int] = []
        count = 0
        for w in order.tolist():
            if count >= budget:
                break
            avail = min(self.max_ngram, int(seg_last[w]) - w)
            n = min(int(np.searchsorted(self._cdfs[avail - 1], draws[w], side="right")) + 1, avail)
            if avail == self.max_ngram:
                draws_full.append(n)
            lo = int(starts[w])
            hi = int(word_end[w + n - 1])
            while count + hi - lo > budget and n > 1:
                n -= 1
                hi = int(word_end[w + n - 1])
            if count + hi - lo > budget or covered[lo:hi].any():
                continue
            covered[lo:hi] = True
            chosen.append((lo, hi))
            ngrams.append(n)
            count += hi - lo

        positions = np.flatnonzero(covered)
        labels = tokens[positions].copy()
        u = rng.random(len(positions))
        replaced = np.where(
            u < self.mask_token_prob, 0, np.where(u < self.mask_token_prob + self.random_token_prob, 1, 2)
        )
        out = tokens.copy()
        out[positions[replaced == 0]] = self.mask_id
        n_random = int((replaced == 1).sum())
        if n_random:
            out[positions[replaced == 1]] = self.random_ids[rng.integers(0, len(self.random_ids), n_random)]
        return MaskResult(out, positions, labels, ngrams, draws_full, replaced.astype(np.int8))
