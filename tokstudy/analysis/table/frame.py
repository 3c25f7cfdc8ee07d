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

from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from tokstudy.analysis.table.columns import OUTSIDE, TokenizerColumns
from tokstudy.analysis.table.io import read_parquet, to_arrow, to_csv, to_parquet, to_rows
from tokstudy.analysis.table.select import select_datasets
from tokstudy.analysis.table.words import word_columns
from tokstudy.data.types import Dataset


@dataclass(frozen=True)
class SegmentationTable:
    """Columnar per-word table (see the module docstring for the layout and why).

    Row ``r`` is one word. Categorical columns are integer codes into the matching
    category tuple (``dataset_code`` into ``datasets`` ...). ``labelled`` is
    ``False`` for words of unlabelled sentences; they count in "all" statistics
    but in neither "NE" nor "non-NE".
    """

    datasets: tuple[str, ...]  # display labels, "name:split" ("name:language:split" when needed)
    dataset_keys: tuple[tuple[str, str, str], ...]  # (name, split, language) of each dataset
    languages: tuple[str, ...]
    splits: tuple[str, ...]
    dataset_code: np.ndarray  # int16, per row
    language_code: np.ndarray  # int16, per row
    split_code: np.ndarray  # int16, per row
    sentence: np.ndarray  # int64 global sentence index (0..n_sentences-1), per row
    sent_id: np.ndarray  # int64 Sentence.sent_id inside its dataset, per row
    word_index: np.ndarray  # int32 position of the word in its sentence
    types: list[str]  # distinct words
    word_type: np.ndarray  # int64 index into ``types``, per row
    tags: tuple[str, ...]  # tag categories ("O" first)
    tag_code: np.ndarray  # int16, per row
    entity_types: tuple[str, ...]
    entity_type_code: np.ndarray  # int16, -1 outside entities
    position: np.ndarray  # int8: OUTSIDE / BEGIN / INSIDE
    entity_id: np.ndarray  # int64 global entity index, -1 outside
    labelled: np.ndarray  # bool
    sentence_offsets: np.ndarray  # int64[n_sentences + 1]: rows of sentence s
    sentence_dataset: np.ndarray  # int16 dataset code of each sentence
    tokenizers: dict[str, TokenizerColumns] = field(default_factory=dict)

    @property
    def dataset_names(self) -> tuple[str, ...]:
        return tuple(k[0] for k in self.dataset_keys)

    # ---- sizes -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.word_type)

    @property
    def n_sentences(self) -> int:
        return len(self.sentence_offsets) - 1

    @property
    def n_entities(self) -> int:
        return int(self.entity_id.max()) + 1 if len(self.entity_id) else 0

    @property
    def tokenizer_names(self) -> list[str]:
        return list(self.tokenizers)

    # ---- derived columns -----------------------------------------------------
    @property
    def inside(self) -> np.ndarray:
        """``True`` for words inside a gold entity."""
        return self.position != OUTSIDE

    @property
    def words(self) -> list[str]:
        """The word of each row (materialised on demand)."""
        types = self.types
        return [types[t] for t in self.word_type.tolist()]

    def word(self, row: int) -> str:
        return self.types[int(self.word_type[row])]

    def tag_of_rows(self) -> list[str]:
        tags = self.tags
        return [tags[c] for c in self.tag_code.tolist()]

    def column(self, tokenizer: str | None) -> TokenizerColumns:
        """The columns of ``tokenizer`` (the only one when ``None`` and there is one)."""
        if tokenizer is None:
            if len(self.tokenizers) != 1:
                raise KeyError(f"the table has tokenizers {self.tokenizer_names}; name one")
            return next(iter(self.tokenizers.values()))
        try:
            return self.tokenizers[tokenizer]
        except KeyError:
            raise KeyError(f"no tokenizer {tokenizer!r} in the table; it has {self.tokenizer_names}") from None

    def n_pieces(self, tokenizer: str | None = None) -> np.ndarray:
        return self.column(tokenizer).n_pieces

    def n_unk(self, tokenizer: str | None = None) -> np.ndarray:
        return self.column(tokenizer).n_unk

    def boundary_policy(self, tokenizer: str | None = None) -> str:
        return self.column(tokenizer).boundary_policy

    def pieces_of(self, tokenizer: str | None, row: int) -> list[str]:
        col = self.column(tokenizer)
        t = int(self.word_type[row])
        return col.type_pieces[col.type_offsets[t] : col.type_offsets[t + 1]]

    def piece_lists(self, tokenizer: str | None = None) -> list[list[str]]:
        """Per-row piece lists (materialised; one list per word)."""
        col = self.column(tokenizer)
        o, p = col.type_offsets.tolist(), col.type_pieces
        per_type = [p[o[t] : o[t + 1]] for t in range(len(o) - 1)]
        return [per_type[t] for t in self.word_type.tolist()]

    def sentence_rows(self, sentence: int) -> slice:
        """Rows of global sentence ``sentence``."""
        return slice(int(self.sentence_offsets[sentence]), int(self.sentence_offsets[sentence + 1]))

    def find_sentence(self, dataset: str, sent_id: int) -> int:
        """Global sentence index of ``sent_id`` in ``dataset``; ``KeyError`` if absent."""
        d = self.datasets.index(dataset)
        starts = self.sentence_offsets[:-1]
        hits = np.flatnonzero(
            (self.sentence_dataset == d) & (self.sent_id[np.minimum(starts, len(self) - 1)] == sent_id)
        )
        if not len(hits):
            raise KeyError(f"no sentence {sent_id} in dataset {dataset!r}")
        return int(hits[0])

    # ---- export and selection (in .io and .select, to keep this file about the data) ----
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

    def with_tokenizers(self, extra: dict[str, TokenizerColumns]) -> "SegmentationTable":
        """A copy with more tokenizer columns (the word columns are shared, not copied)."""
        return replace(self, tokenizers={**self.tokenizers, **extra})


def build_word_columns(datasets: Sequence[Dataset]) -> SegmentationTable:
    """The table of ``datasets`` with its word columns only (no tokenizer yet), validating IOB2 tags.

    >>> from tokstudy.data.types import Dataset, Sentence
    >>> t = build_word_columns([Dataset((Sentence(("EU", "rejects"), ("B-ORG", "O")),), "demo", "en", "test")])
    >>> t.datasets, t.types, t.entity_types
    (('demo:test',), ['EU', 'rejects'], ('ORG',))
    """
    return SegmentationTable(**word_columns(datasets))
