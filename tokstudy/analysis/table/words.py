"""The word columns of the segmentation table: words, sentences, datasets and IOB2 tags, no tokenizer yet.

:func:`word_columns` lays every word of the datasets out as one row (see
:mod:`tokstudy.analysis.table.frame` for the layout) and validates the tags; it returns the
fields of a :class:`~tokstudy.analysis.table.frame.SegmentationTable` without tokenizers
(:func:`~tokstudy.analysis.table.frame.build_word_columns` makes the table of them), and the
tokenizers' columns are added by :func:`~tokstudy.analysis.table.build.segmentation_table`.

>>> from tokstudy.data.types import Dataset, Sentence
>>> cols = word_columns([Dataset((Sentence(("EU", "rejects"), ("B-ORG", "O")),), "demo", "en", "test")])
>>> cols["datasets"], cols["types"], cols["entity_types"]
(('demo:test',), ['EU', 'rejects'], ('ORG',))
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from tokstudy.analysis.table.factorize import factorize
from tokstudy.analysis.table.tags import encode_tags
from tokstudy.data.types import Dataset
from tokstudy.errors import DataFormatError


def dataset_labels(datasets: Sequence[Dataset]) -> list[str]:
    """Display labels: ``name:split``, or ``name:language:split`` where names and splits repeat.

    >>> from tokstudy.data.types import Dataset
    >>> dataset_labels([Dataset((), "wikiann", "ru", "test"), Dataset((), "wikiann", "en", "test")])
    ['wikiann:ru:test', 'wikiann:en:test']
    """
    short = [f"{d.name}:{d.split}" for d in datasets]
    return [f"{d.name}:{d.language}:{d.split}" if short.count(s) > 1 else s for d, s in zip(datasets, short)]


def word_columns(datasets: Sequence[Dataset]) -> dict[str, object]:
    """The word columns (no tokenizer yet) of ``datasets`` by field name, validating IOB2 tags."""
    ds_names = dataset_labels(datasets)
    if len(set(ds_names)) != len(ds_names):
        dup = sorted({n for n in ds_names if ds_names.count(n) > 1})
        raise ValueError(f"datasets given twice: {dup}; each name, language and split may appear once")
    languages = list(dict.fromkeys(d.language for d in datasets))
    splits = list(dict.fromkeys(d.split for d in datasets))

    words: list[str] = []
    tags: list[str | None] = []
    sent_lengths: list[int] = []
    sent_ids: list[int] = []
    sent_dataset: list[int] = []
    where: list[tuple[int, object]] = []  # (dataset index, sentence) per sentence, for error messages
    for d, ds in enumerate(datasets):
        n_before = len(words)
        for s in ds.sentences:
            if not s.words:
                continue
            words.extend(s.words)
            tags.extend(s.tags if s.tags is not None else [None] * len(s.words))
            sent_lengths.append(len(s.words))
            sent_ids.append(s.sent_id)
            sent_dataset.append(d)
            where.append((d, s))
        if len(words) == n_before:
            raise DataFormatError(
                f"dataset {ds_names[d]!r} has no words; expected at least one sentence with words",
                path=ds.source,
            )

    lengths = np.asarray(sent_lengths, dtype=np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    n = len(words)
    sentence = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    word_index = (np.arange(n, dtype=np.int64) - offsets[:-1][sentence]).astype(np.int32)
    sent_dataset_arr = np.asarray(sent_dataset, dtype=np.int16)
    lang_of_ds = np.asarray([languages.index(d.language) for d in datasets], dtype=np.int16)
    split_of_ds = np.asarray([splits.index(d.split) for d in datasets], dtype=np.int16)
    dataset_code = sent_dataset_arr[sentence]

    # distinct words (cheaper than np.unique on object arrays)
    word_type, types = factorize(words)

    def locate(row: int) -> str:
        s = int(sentence[row])
        d, sent = where[s]
        place = f"dataset {ds_names[d]!r}, sentence {sent.sent_id}, word {int(word_index[row])} ({words[row]!r})"
        src = datasets[d].source
        if src and sent.line is not None:
            place = f"{src}:{sent.line}: " + place  # the sentence's first line
        return place

    enc = encode_tags(tags, sentence, locate)
    return dict(
        datasets=tuple(ds_names),
        dataset_keys=tuple((d.name, d.split, d.language) for d in datasets),
        languages=tuple(languages),
        splits=tuple(splits),
        dataset_code=dataset_code,
        language_code=lang_of_ds[dataset_code],
        split_code=split_of_ds[dataset_code],
        sentence=sentence,
        sent_id=np.asarray(sent_ids, dtype=np.int64)[sentence],
        word_index=word_index,
        types=types,
        word_type=word_type,
        tags=enc.tags,
        tag_code=enc.tag_code,
        entity_types=enc.entity_types,
        entity_type_code=enc.entity_type_code,
        position=enc.position,
        entity_id=enc.entity_id,
        labelled=enc.labelled,
        sentence_offsets=offsets,
        sentence_dataset=sent_dataset_arr,
    )
