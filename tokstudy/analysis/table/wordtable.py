"""The per-word table's columns and their accessors: what export, selection and the table itself all read.

:class:`WordTable` is the data of a segmentation table (the layout and why it is numpy columns:
:mod:`tokstudy.analysis.table.frame`); :mod:`.io` and :mod:`.select` take one, and
:class:`~tokstudy.analysis.table.frame.SegmentationTable` adds them to it as methods. It sits in a module of its
own so that those two need not import the module whose class calls them (no import circle, type hints included).

>>> from tokstudy.analysis.table.words import word_columns
>>> from tokstudy.data.types import Dataset, Sentence
>>> t = WordTable(**word_columns([Dataset((Sentence(("EU", "rejects"), ("B-ORG", "O")),), "demo", "en", "test")]))
>>> len(t), t.n_sentences, t.n_entities, t.words, t.inside.tolist()
(2, 1, 1, ['EU', 'rejects'], [True, False])
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypeVar

import numpy as np

from tokstudy.analysis.table.columns import OUTSIDE, TokenizerColumns

#: a WordTable or a subclass (typing.Self is Python 3.11; we support 3.10)
T = TypeVar("T", bound="WordTable")


@dataclass(frozen=True)
class WordTable:
    """Columnar per-word table (see :mod:`tokstudy.analysis.table.frame` for the layout and why).

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

    def with_tokenizers(self: T, extra: dict[str, TokenizerColumns]) -> T:
        """A copy with more tokenizer columns (the word columns are shared, not copied)."""
        return replace(self, tokenizers={**self.tokenizers, **extra})
