"""The per-word segmentation table: one row per word, every statistic derives from it.

Why numpy columns (and not pandas or pyarrow in the core):

* every statistic is a masked sum grouped by sentence, entity type, language, ...;
  ``np.bincount(group, weights=...)`` does that in one vectorised pass, and the
  bootstrap resamples per-sentence sums with a matrix product: numpy is all we need;
* pieces are kept the way an Arrow list array keeps them, one flat list plus
  offsets, but per *distinct word*: a corpus repeats words (CoNLL-2003 has ~300k
  words, ~30k distinct), each word is segmented independently (the
  :class:`~tokstudy.tokenization.base.Segmenter` contract), so each tokenizer is
  called ONCE, vectorised, on the distinct words of all datasets together and
  rows point to their word type. This is exact, and it is what makes the table
  cheaper than the raw batch ``encode`` of every word;
* categorical columns (dataset, language, split, tag, entity type) are small
  integer codes plus a category list, so a group-by is a ``bincount``;
* pyarrow is used only at the edges (Parquet/CSV export and import, in
  :mod:`tokstudy.analysis.table.io`); pandas is never needed.

>>> from tokstudy.data.types import Dataset, Sentence
>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Halves(Segmenter):
...     name, kind, vocab_size = "halves", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists(
...             [[w[: (len(w) + 1) // 2], w[(len(w) + 1) // 2 :]] if len(w) > 1 else [w] for w in words]
...         )
>>> ds = Dataset((Sentence(("EU", "rejects", "a"), ("B-ORG", "O", "O")),), name="demo", language="en", split="test")
>>> from tokstudy.analysis.table import segmentation_table
>>> t = segmentation_table([ds], [Halves()], progress=False)
>>> t.n_pieces("halves").tolist(), t.pieces_of("halves", 1)
([2, 2, 1], ['reje', 'cts'])
"""

from __future__ import annotations

from typing import Sequence

from tokstudy.analysis.table.io import read_parquet, to_arrow, to_csv, to_parquet, to_rows
from tokstudy.analysis.table.select import select_datasets
from tokstudy.analysis.table.words import word_columns
from tokstudy.analysis.table.wordtable import WordTable
from tokstudy.data.types import Dataset


class SegmentationTable(WordTable):
    """The per-word table (its columns and accessors: :class:`~tokstudy.analysis.table.wordtable.WordTable`)
    with export (:mod:`.io`) and selection (:mod:`.select`) as methods."""

    def to_rows(self, tokenizers: Sequence[str] | None = None) -> list[dict]:
        return to_rows(self, tokenizers)

    def to_arrow(self):
        return to_arrow(self)

    def to_csv(self, path) -> None:
        to_csv(self, path)

    def to_parquet(self, path) -> None:
        to_parquet(self, path)

    @classmethod
    def from_parquet(cls, path) -> "SegmentationTable":
        """The table written by :meth:`to_parquet` (see :mod:`tokstudy.analysis.table.io`)."""
        words, tokenizers = read_parquet(path)
        return cls(**words, tokenizers=tokenizers)

    def select(self, *, dataset: str | Sequence[str]) -> "SegmentationTable":
        """The rows of one dataset (or several, by display label), equal to the table built from them alone.

        Nothing is segmented again: the tokenizers' columns are gathered from this table
        (:func:`~tokstudy.analysis.table.select.select_datasets`).
        """
        return select_datasets(self, [dataset] if isinstance(dataset, str) else list(dataset))


def build_word_columns(datasets: Sequence[Dataset]) -> SegmentationTable:
    """The table of ``datasets`` with its word columns only (no tokenizer yet), validating IOB2 tags.

    >>> from tokstudy.data.types import Dataset, Sentence
    >>> t = build_word_columns([Dataset((Sentence(("EU", "rejects"), ("B-ORG", "O")),), "demo", "en", "test")])
    >>> t.datasets, t.types, t.entity_types
    (('demo:test',), ['EU', 'rejects'], ('ORG',))
    """
    return SegmentationTable(**word_columns(datasets))
