"""The Shredded words page's data: the library's rankings (:mod:`tokstudy.analysis.stats.shredded`) as frames.

No figure is computed here: :func:`tokstudy.analysis.stats.shredded.shredded_table` ranks, and this module
only lays its frozen results out as pandas frames for the page's sortable tables and CSV downloads, and
finds the sentences of a word (:func:`tokstudy.analysis.stats.shredded.sentences_with_word`) under the
app's dataset keys, for the links to the explorer.

>>> from tokstudy.analysis.stats.shredded import ShreddedTable, ShreddedWords, ShreddedWord
>>> r = ShreddedWords("spm", None, 3, 10, 16, 2, 8, 1, (ShreddedWord("Reykjavik", 2, 4, ("▁Re", "yk", "ja", "vik")),))
>>> ranking_frame(ShreddedTable((r,), (), 3)).iloc[0].to_dict()["pieces"]
'▁Re · yk · ja · vik'
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from tokstudy.analysis.stats.shredded import ShreddedTable, sentences_with_word, shredded_table
from tokstudy.report.shredded import comparison_rows, summary_rows
from tokstudy.report.table3 import SEPARATOR

#: the ranking's columns as the page names them
RANKING_COLUMNS = ["language", "tokenizer", "rank", "word", "frequency", "pieces count", "pieces", "token share %"]


def shredded(table, tokenizers: Sequence[str], min_pieces: int) -> ShreddedTable:
    """Every shredded word of every tokenizer (and language), side by side: the library's ranking, unlimited."""
    return shredded_table(table, list(tokenizers), min_pieces=min_pieces, limit=None)


def ranking_frame(result: ShreddedTable) -> pd.DataFrame:
    """One row per ranked word of each (language, tokenizer)."""
    rows = [
        {
            "language": r.language or "all",
            "tokenizer": r.tokenizer,
            "rank": i,
            "word": w.word,
            "frequency": w.frequency,
            "pieces count": w.n_pieces,
            "pieces": SEPARATOR.join(w.pieces),
            "token share %": 100 * w.tokens / r.n_tokens if r.n_tokens else float("nan"),
        }
        for r in result.rankings
        for i, w in enumerate(r.words, 1)
    ]
    return pd.DataFrame(rows, columns=RANKING_COLUMNS)


def summary_frame(result: ShreddedTable) -> pd.DataFrame:
    """One row per (language, tokenizer): words, pieces, shredded words % and their token share %."""
    return pd.DataFrame(summary_rows(result))


def comparison_frame(result: ShreddedTable, language: str | None = None) -> pd.DataFrame:
    """The words side by side (pieces under each tokenizer, who keeps them whole) for one language."""
    for c in result.comparisons:
        if c.language == language:
            return pd.DataFrame(comparison_rows(c))
    return pd.DataFrame()


def word_sentences(table, word: str, dataset_keys: Sequence[str], *, limit: int = 20) -> list[tuple[str, int]]:
    """``(app dataset key, sent_id)`` of the first ``limit`` sentences holding ``word``; the table's datasets
    are the app's ``dataset_keys`` in the same order (the table was built from them)."""
    keys = dict(zip(table.datasets, dataset_keys))
    return [(keys[d], sid) for d, sid in sentences_with_word(table, word, limit=limit)]
