"""Sentence classification TSV (GLUE SST-2 layout): a header ``sentence<TAB>label``, then one row per line.

Each row becomes a :class:`Sentence` with ``words`` = the sentence split on
whitespace, ``label`` = the label string and ``tags = None``. Plain or ``.gz``.
Column names are looked up in the header, so extra columns and other orders work.

>>> from pathlib import Path; p = Path("/tmp/_tsv_demo.tsv")
>>> _ = p.write_text("sentence\\tlabel\\na charming journey . \\t1\\n")
>>> s = read_tsv(p, name="demo")[0]
>>> s.words, s.label, s.line
(('a', 'charming', 'journey', '.'), '1', 2)
"""

from __future__ import annotations

import os
from pathlib import Path

from tokstudy.data.textio import Problems, iter_lines
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError


def read_tsv(
    path: str | os.PathLike,
    *,
    text_column: str = "sentence",
    label_column: str = "label",
    name: str | None = None,
    language: str = "en",
    split: str = "all",
    encoding: str = "utf-8",
) -> Dataset:
    """Read a headed TSV of sentences and labels into a :class:`Dataset` (``tags=None``).

    Raises :class:`DataFormatError` naming file and line for a header without the two
    columns, a row with a different number of fields than the header, or an empty
    sentence or label (the first 20 bad rows, with the total).
    """
    path = Path(path)
    lines = iter_lines(path, encoding=encoding)
    _, header_text = next(lines)
    header = header_text.split("\t")
    try:
        ti, li = header.index(text_column), header.index(label_column)
    except ValueError:
        raise DataFormatError(
            f"header {header!r} lacks column {text_column!r} or {label_column!r}; expected a tab-separated "
            f"header such as 'sentence<TAB>label'",
            path=path,
            line=1,
        ) from None
    width = len(header)
    sentences = []
    problems = Problems(path)
    for number, text in lines:
        if not text.strip():
            continue  # a trailing blank line
        fields = text.split("\t")
        if len(fields) != width:
            problems.add(number, f"row has {len(fields)} tab-separated fields, expected {width} as in the header")
            continue
        words = fields[ti].split()
        label = fields[li].strip()
        if not words or not label:
            problems.add(number, "empty sentence or label; expected both")
            continue
        sentences.append(Sentence(words=tuple(words), tags=None, sent_id=len(sentences), label=label, line=number))
    problems.raise_if_any()
    if not sentences:
        raise DataFormatError("no rows after the header; expected at least one", path=path)
    return Dataset(
        sentences=tuple(sentences),
        name=name or path.name,
        language=language,
        split=split,
        source=str(path),
        metadata={"labels": sorted({s.label for s in sentences})},
    )
