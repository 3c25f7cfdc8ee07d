"""Intrinsic tokenizer metrics over the per-word table, per tokenizer and per group, with intervals.

For each tokenizer and each group of words (NE, non-NE, all; and each language when there are
several), the five figures of :mod:`tokstudy.analysis.stats.intrinsic`, named as in ``tokstudy stats
--json``: ``chars_per_piece``, ``bytes_per_piece`` (compression: characters / UTF-8 bytes of the
segmented words per piece), ``shannon_entropy`` (bits), ``renyi_efficiency`` (order ``alpha``,
Zouhar et al. 2023) and ``vocab_utilization`` of the unigram distribution of pieces.

Intervals, all for the sentence bootstrap of :mod:`tokstudy.analysis.stats.bootstrap` (resampling sentences):

* compression figures are ratios of sums, bootstrapped exactly like the other figures (same resamples);
* entropy and efficiency are smooth functions of the piece counts ``c``; re-counting every piece
  in every resample would cost a (sentences × vocabulary) product per resample, so they use the
  **linear bootstrap**: the statistic's first-order (influence-function) expansion under the
  resampling weights, ``T* = T + sum_s (w_s - 1) psi_s`` with ``psi_s = sum_v c_sv dT/dc_v``
  (Efron 1982, *The Jackknife, the Bootstrap and Other Resampling Plans*, ch. 6). Its resampling
  variance is known in closed form, ``sum psi_s^2 - (sum psi_s)^2 / n`` for multinomial sentence
  weights, so the interval is ``T ± z sd`` and no resample is drawn (tests check it against a
  full re-counting bootstrap);
* vocabulary utilisation gets **no interval**: a resample can never hold a piece the sample
  lacks, so the bootstrap of a count of distinct pieces is biased downward and its percentile
  interval would lie below the estimate (the known failure of the bootstrap for support size).

>>> # s = table_statistics(table).intrinsic[0]; s.groups["ne"].renyi_efficiency.value
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.stats.groupings import SUBSETS, Groupings
from tokstudy.analysis.stats.intrinsic import (
    DEFAULT_RENYI_ALPHA,
    renyi_efficiency,
    shannon_entropy,
    vocab_utilization,
)
from tokstudy.analysis.stats.ratio_batch import FigureKey, Quantity, RatioBatch
from tokstudy.analysis.table import SegmentationTable, TokenizerColumns
from tokstudy.analysis.table.factorize import factorize

FIELDS = ("chars_per_piece", "bytes_per_piece", "shannon_entropy", "renyi_efficiency", "vocab_utilization")


@dataclass(frozen=True)
class IntrinsicEstimates:
    """The five intrinsic figures over one group of words.

    Attributes:
        chars_per_piece: characters of the words per piece.
        bytes_per_piece: UTF-8 bytes of the words per piece.
        shannon_entropy: Shannon entropy of the piece distribution, bits.
        renyi_efficiency: Rényi entropy of order ``alpha`` / log2(vocabulary size).
        vocab_utilization: share of the vocabulary's pieces that occur (no interval; see the module docstring).
        n_pieces: pieces in the group.
        n_distinct: distinct pieces in the group.
    """

    chars_per_piece: Estimate
    bytes_per_piece: Estimate
    shannon_entropy: Estimate
    renyi_efficiency: Estimate
    vocab_utilization: Estimate
    n_pieces: int
    n_distinct: int


@dataclass(frozen=True)
class IntrinsicSummary:
    """Intrinsic figures of one tokenizer: ``groups`` maps ``ne``, ``non_ne``, ``all`` and
    ``language:<code>`` (with several languages) to :class:`IntrinsicEstimates`."""

    tokenizer: str
    vocab_size: int
    renyi_alpha: float
    groups: dict[str, IntrinsicEstimates]
    """``vocab_size`` is 0 when the tokenizer does not report one at least as large as the distinct
    pieces seen; ``renyi_efficiency`` and ``vocab_utilization`` are then NaN."""


def _derivatives(counts: np.ndarray, vocab_size: int, alpha: float) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Shannon entropy, Rényi efficiency, and their derivatives with respect to each piece count."""
    n = counts.sum()
    h = shannon_entropy(counts)
    eff = renyi_efficiency(counts, vocab_size=vocab_size, alpha=alpha) if vocab_size >= 2 else float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = counts / n
        dh = np.where(counts > 0, -(np.log2(np.where(counts > 0, p, 1.0)) + h) / n, 0.0)
        if vocab_size < 2:
            deff = np.zeros_like(dh)
        elif alpha == 1:
            deff = dh / math.log2(vocab_size)
        else:
            s_a = float((p[counts > 0] ** alpha).sum())
            deff = np.where(counts > 0, alpha / ((1 - alpha) * math.log(2)) * (p ** (alpha - 1) / s_a - 1) / n, 0.0)
            deff = deff / math.log2(vocab_size)
    return h, eff, dh, deff


@dataclass(frozen=True)
class IntrinsicPlan:
    """The compression ratios of every tokenizer and group, registered in the statistics' batch.

    Entropy and efficiency need no resample (see the module docstring), so :meth:`result` computes
    them, with their intervals, once the batch has run; the groups of all tokenizers share one
    product with the sentences.
    """

    columns: tuple[TokenizerColumns, ...]
    figures: tuple[dict[str, tuple[FigureKey, FigureKey]], ...]  # per tokenizer: group -> (chars, bytes) per piece
    masks: dict[str, np.ndarray | None]  # group -> its rows (None: every row)
    alpha: float
    table: SegmentationTable

    @classmethod
    def register(
        cls,
        batch: RatioBatch,
        groupings: Groupings,
        table: SegmentationTable,
        tokenizers,
        *,
        alpha: float = DEFAULT_RENYI_ALPHA,
    ) -> "IntrinsicPlan":
        """``groupings`` must hold ``("language", "all")`` when the table has several languages."""
        types = table.types
        chars_t = np.fromiter(map(len, types), np.float64, len(types))
        chars = Quantity("characters", chars_t[table.word_type])
        nbytes = chars  # ASCII only: bytes are characters
        wide = np.flatnonzero(~np.fromiter(map(str.isascii, types), bool, len(types)))
        if len(wide):
            bytes_t = chars_t.copy()
            bytes_t[wide] = [len(types[i].encode("utf-8")) for i in wide.tolist()]
            nbytes = Quantity("utf-8 bytes", bytes_t[table.word_type])
        subsets = {subset: groupings.subsets[subset] for subset in SUBSETS}
        masks = {name: None if g.codes is None else g.codes == 0 for name, g in subsets.items()}
        languages = None
        if len(table.languages) > 1:
            languages = groupings.by[("language", "all")]
            masks.update({f"language:{lang}": languages.codes == k for k, lang in enumerate(table.languages)})
        columns, figures = [], []
        for tok in tokenizers:
            col = table.column(tok)
            pieces = Quantity("pieces", col.n_pieces, col.name)
            groups = {}
            for name, g in subsets.items():
                groups[name] = (
                    batch.ratio("characters per piece", chars, pieces, g)[0],
                    batch.ratio("bytes per piece", nbytes, pieces, g)[0],
                )
            if languages is not None:
                per_char = batch.ratio("characters per piece", chars, pieces, languages)
                per_byte = batch.ratio("bytes per piece", nbytes, pieces, languages)
                for k, lang in enumerate(table.languages):
                    groups[f"language:{lang}"] = (per_char[k], per_byte[k])
            columns.append(col)
            figures.append(groups)
        return cls(tuple(columns), tuple(figures), masks, alpha, table)

    def result(self, est: dict[FigureKey, Estimate], settings: BootstrapSettings) -> list[IntrinsicSummary]:
        """One summary per tokenizer, in the order registered."""
        return _finish(est, settings, self)


def _sentence_sums(table: SegmentationTable, mask: np.ndarray | None, per_type: list[np.ndarray]) -> np.ndarray:
    """``(sentences, k)``: for each column of ``per_type`` (a value per word type), its sum over each
    sentence's rows in ``mask``.

    The product of the (sentences × word types) occurrence counts with ``per_type``, done as one
    ``bincount`` per column over the rows: the same sums in the same order as a sparse product,
    without importing scipy.sparse (which alone costs more than every product here).
    """
    rows = slice(None) if mask is None else np.flatnonzero(mask)
    sentence, word_type = table.sentence[rows], table.word_type[rows]
    out = np.empty((table.n_sentences, len(per_type)))
    for j, values in enumerate(per_type):
        out[:, j] = np.bincount(sentence, weights=values[word_type], minlength=table.n_sentences)
    return out


def _piece_ids(col: TokenizerColumns) -> tuple[np.ndarray, int, int]:
    """An integer id per flat piece, equal for equal pieces (every unknown piece is the one unknown
    token); the number of ids (a bound) and of distinct pieces.

    The tokenizer's own vocabulary ids when the table kept them and they tell the same pieces
    apart as the strings do (checked on one piece per id); else the strings, factorized.
    """
    ids = col.type_piece_ids
    if ids is not None and len(ids) and ids.min() >= 0:
        n_bins = int(ids.max()) + 1
        seen = np.flatnonzero(np.bincount(ids, minlength=n_bins))
        some = np.zeros(n_bins, np.int64)
        some[ids] = np.arange(len(ids))  # a piece of each id (which one does not matter)
        pieces = col.type_pieces
        if col.type_unk is not None and col.type_unk.any():
            pieces = _pooled_unknowns(col)
        # one string per id (consistent) and one id per string (injective): the ids count pieces as strings do
        strings = np.array(pieces, dtype=object)
        of_id = strings[some]
        if (strings == of_id[ids]).all() and len(set(of_id[seen].tolist())) == len(seen):
            return ids, n_bins, len(seen)
    pieces = col.type_pieces
    if col.type_unk is not None and col.type_unk.any():
        pieces = _pooled_unknowns(col)
    codes, uniques = factorize(pieces)
    return codes, len(uniques), len(uniques)


def _pooled_unknowns(col: TokenizerColumns) -> list[str]:
    """The flat pieces with every unknown piece (whatever text it covers) as one token."""
    pieces = list(col.type_pieces)
    for i in np.flatnonzero(col.type_unk).tolist():
        pieces[i] = "\x00<unk>"
    return pieces


def _finish(est: dict[FigureKey, Estimate], settings: BootstrapSettings, plan: IntrinsicPlan) -> list[IntrinsicSummary]:
    table, masks, alpha = plan.table, plan.masks, plan.alpha
    n_types = len(table.types)
    freq = {
        name: np.bincount(table.word_type, weights=None if m is None else m.astype(np.float64), minlength=n_types)
        for name, m in masks.items()
    }
    # per group: d statistic / d (one more occurrence of word type t), two columns per tokenizer
    per_type: dict[str, list[np.ndarray]] = {name: [] for name in masks}
    points = []
    for col, groups in zip(plan.columns, plan.figures):
        piece_id, n_ids, n_distinct = _piece_ids(col)
        owner = np.repeat(np.arange(n_types), np.diff(col.type_offsets))  # word type of each flat piece
        # a vocabulary smaller than the distinct pieces seen is not the real one: no efficiency, no utilisation
        vocab = col.vocab_size if col.vocab_size >= n_distinct else 0
        for name, handles in groups.items():
            counts = np.bincount(piece_id, weights=freq[name][owner], minlength=n_ids)
            if counts.sum() == 0:
                continue
            h, eff, dh, deff = _derivatives(counts, vocab, alpha)
            # the derivative for a word type is the sum of the derivatives of its pieces
            points.append((col, vocab, name, handles, h, eff, counts, len(per_type[name])))
            per_type[name] += [np.bincount(owner, weights=d[piece_id], minlength=n_types) for d in (dh, deff)]
    sd = {}
    if settings.n_resamples and points and table.n_sentences:
        for name, columns in per_type.items():
            if not columns:
                continue
            psi = _sentence_sums(table, masks[name], columns)  # (sentences, 2 per tokenizer)
            # variance of sum_s w_s psi_s under multinomial(n, 1/n) sentence weights: sum psi^2 - (sum psi)^2 / n
            sd[name] = np.sqrt(np.maximum((psi * psi).sum(0) - psi.sum(0) ** 2 / table.n_sentences, 0.0))
    z = NormalDist().inv_cdf(0.5 + settings.confidence / 2)
    nan = float("nan")
    out: dict[str, IntrinsicSummary] = {}
    for col, vocab, name, handles, h, eff, counts, j in points:
        first = est[handles[0]]
        ests = []
        for k, value in ((j, h), (j + 1, eff)):
            if name not in sd or math.isnan(value):
                ests.append(Estimate(value, nan, nan, first.n_words, first.n_sentences))
            else:
                half = z * sd[name][k]
                ests.append(Estimate(value, value - half, value + half, first.n_words, first.n_sentences))
        util = vocab_utilization(counts, vocab_size=vocab) if vocab else nan
        summary = out.setdefault(col.name, IntrinsicSummary(col.name, vocab, alpha, {}))
        summary.groups[name] = IntrinsicEstimates(
            chars_per_piece=first,
            bytes_per_piece=est[handles[1]],
            shannon_entropy=ests[0],
            renyi_efficiency=ests[1],
            vocab_utilization=Estimate(util, nan, nan, first.n_words, first.n_sentences),
            n_pieces=int(round(counts.sum())),
            n_distinct=int(np.count_nonzero(counts)),
        )
    return [out[col.name] for col in plan.columns if col.name in out]
