"""Adapters for the Languages page: parity and fertility on parallel text, continued words per language.

Parity and fertility come from :func:`tokstudy.analysis.stats.parity.parity`; the share of
continued words from :func:`tokstudy.analysis.stats.segmentation_summary` over a table
of each language's paragraphs (unlabelled sentences split on whitespace, as ``parity``
splits them), so both views count the same words.

Both ask their tokenizers to segment the same words, so the parallel text is segmented once:
:func:`presegment` segments every distinct word of the selected languages with each tokenizer
(one call per tokenizer) and gives back :class:`Presegmented` tokenizers that answer ``segment``
from that result. Both only count pieces, so a tokenizer that can segment without reading the
text of its unknown pieces (``segment_ids``: SentencePiece) does so, in one encode call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat

import numpy as np
import pandas as pd

from tokstudy.tokenization.base import Segmentation, Segmenter


class Presegmented(Segmenter):
    """A tokenizer whose segmentation of a fixed set of words is already computed.

    ``segment(words)`` looks each word up (a ``KeyError`` for a word outside the set) and returns
    what the tokenizer's counting segmentation (:func:`counting_segmentation`) gave for it: the
    offsets, ``unk`` flags and ids of its ``segment``, an unknown piece left as the unknown token
    rather than the text it covers; name, kind, vocabulary size and boundary policy are the tokenizer's.
    ``index`` (word -> position in ``words``) may be shared by several tokenizers of the same words.
    """

    def __init__(self, seg: Segmenter, words: Sequence[str], result: Segmentation, index: dict | None = None):
        self.name, self.kind, self.vocab_size = seg.name, getattr(seg, "kind", "unknown"), seg.vocab_size
        self.count_lone_boundary, self.context = seg.count_lone_boundary, seg.context
        # a dict: looking up a few hundred thousand words is several times faster than a pandas Index
        # of (Arrow) strings, which also has to be built first
        self._index = index if index is not None else {w: i for i, w in enumerate(words)}
        self._pieces = np.empty(len(result.pieces), dtype=object)
        self._pieces[:] = result.pieces
        self._result = result

    def segment(self, words: Sequence[str]) -> Segmentation:
        res = self._result
        idx = np.fromiter(map(self._index.get, words, repeat(-1)), dtype=np.int64, count=len(words))
        if len(idx) and idx.min() < 0:
            raise KeyError(f"{self.name}: {words[int(np.argmin(idx))]!r} is not among the presegmented words")
        counts = np.diff(res.offsets)[idx]
        offsets = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        # position of every piece of the chosen words in the full result
        pos = np.repeat(res.offsets[idx] - offsets[:-1], counts) + np.arange(offsets[-1], dtype=np.int64)
        pieces = self._pieces[pos].tolist()
        ids = None if res.ids is None else np.asarray(res.ids)[pos]
        return Segmentation(pieces, offsets, np.asarray(res.unk)[pos], ids)


def counting_segmentation(seg: Segmenter, words: Sequence[str]) -> Segmentation:
    """``seg.segment_ids(words)`` where the tokenizer has it (the pieces without the text of unknown
    ones, one encode call), else ``seg.segment(words)``; either way the counts, ``unk`` flags and ids
    of ``seg.segment(words)``."""
    return getattr(seg, "segment_ids", seg.segment)(words)


def distinct_words(paragraphs: Mapping[str, Sequence[str]]) -> tuple[list[str], dict[str, int]]:
    """Every whitespace word of ``paragraphs`` once (first appearance first), and word -> position."""
    words = list(dict.fromkeys(w for paras in paragraphs.values() for p in paras for w in p.split()))
    return words, {w: i for i, w in enumerate(words)}


def presegment(
    paragraphs: Mapping[str, Sequence[str]], segmenters: Sequence, *, words: tuple | None = None
) -> list[Presegmented]:
    """Each tokenizer's segmentation of every whitespace word of ``paragraphs``, computed once.

    ``words``: :func:`distinct_words` of ``paragraphs`` when already computed (shared by every tokenizer).
    """
    words, index = words if words is not None else distinct_words(paragraphs)
    return [Presegmented(seg, words, counting_segmentation(seg, words), index) for seg in segmenters]


def read_parallel(directory: str, languages: Sequence[str] | None = None) -> dict[str, list[str]]:
    from tokstudy.analysis.stats.parity import read_parallel_text

    return read_parallel_text(directory, languages)


def parity_frame(
    paragraphs: Mapping[str, Sequence[str]],
    segmenters: Sequence,
    *,
    reference: str = "en",
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per tokenizer x language: parity and fertility with CIs."""
    from tokstudy.analysis.stats.parity import parity

    rows = []
    for res in parity(paragraphs, list(segmenters), reference=reference, n_resamples=n_resamples, seed=seed):
        for lang, lp in res.languages.items():
            rows.append(
                {
                    "tokenizer": res.tokenizer,
                    "language": lang,
                    "parity": lp.parity.value,
                    "parity_low": lp.parity.low,
                    "parity_high": lp.parity.high,
                    "fertility": lp.fertility.value,
                    "fertility_low": lp.fertility.low,
                    "fertility_high": lp.fertility.high,
                    "pieces": lp.n_pieces,
                    "words": lp.n_words,
                    "paragraphs": lp.n_paragraphs,
                }
            )
    return pd.DataFrame(rows)


def continued_frame(
    paragraphs: Mapping[str, Sequence[str]], segmenters: Sequence, *, n_resamples: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per tokenizer x language: % of whitespace words split into >= 2 pieces, with CI."""
    from tokstudy.analysis.stats import segmentation_summary
    from tokstudy.analysis.table import build_word_columns, tokenizer_columns
    from tokstudy.data.types import Dataset, Sentence

    rows = []
    for lang, paras in paragraphs.items():
        sents = tuple(Sentence(tuple(p.split()), None, sent_id=i) for i, p in enumerate(paras) if p.split())
        # segmentation_table's own steps, less its unknown-piece report (a third of the time on
        # text a tokenizer does not cover, e.g. Arabic under an English vocabulary; nothing here shows it)
        words = build_word_columns([Dataset(sents, name=f"parallel-{lang}", language=lang, split="all")])
        table = words.with_tokenizers({seg.name: tokenizer_columns(words, seg) for seg in segmenters})
        for seg in segmenters:
            s = segmentation_summary(table, seg.name, n_resamples=n_resamples, seed=seed).all
            rows.append(
                {
                    "tokenizer": seg.name,
                    "language": lang,
                    "continued": s.continued.value,
                    "continued_low": s.continued.low,
                    "continued_high": s.continued.high,
                }
            )
    return pd.DataFrame(rows)
