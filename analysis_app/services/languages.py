"""Adapters for the Languages page: parity and fertility on parallel text, continued words per language.

Parity and fertility come from :func:`tokstudy.analysis.parity.parity`; the share of
continued words from :func:`tokstudy.analysis.stats.segmentation_summary` over a table
of each language's paragraphs (unlabelled sentences split on whitespace, as ``parity``
splits them), so both views count the same words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd


def read_parallel(directory: str, languages: Sequence[str] | None = None) -> dict[str, list[str]]:
    from tokstudy.analysis.parity import read_parallel_text

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
    from tokstudy.analysis.parity import parity

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
    from tokstudy.analysis.table import tokenizer_columns
    from tokstudy.analysis.word_columns import build_word_columns
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
