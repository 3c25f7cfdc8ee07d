"""Slot filling + intent data in the SNIPS/ATIS layout (``seq.in``, ``seq.out``, ``label``).

A split directory holds three line-aligned files: ``seq.in`` (the utterance, split on
whitespace), ``seq.out`` (one BIO slot tag per word) and ``label`` (the intent). Each
line becomes a :class:`Sentence` with ``words``, IOB2 ``tags`` and ``label`` = intent.
SNIPS lines end with a space; splitting on whitespace makes that harmless.

Errors name the file and line: files with different line counts, a line whose word
count differs between ``seq.in`` and ``seq.out``, an empty utterance, tags outside
the scheme or forbidden ``I-`` tags (strict mode), invalid UTF-8, missing files.

>>> import os, tempfile; d = tempfile.mkdtemp()
>>> for f, t in [("seq.in", "play abba \\n"), ("seq.out", "O B-artist \\n"), ("label", "PlayMusic\\n")]:
...     _ = open(os.path.join(d, f), "w").write(t)
>>> s = read_slu(d, name="demo", split="test")[0]
>>> s.words, s.tags, s.label
(('play', 'abba'), ('O', 'B-artist'), 'PlayMusic')
"""

from __future__ import annotations

import os
from pathlib import Path

from tokstudy.data.repairs import RepairLog
from tokstudy.data.schemes import to_iob2
from tokstudy.data.textio import iter_lines
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError

FILES = ("seq.in", "seq.out", "label")


def read_slu(
    directory: str | os.PathLike,
    *,
    name: str = "slu",
    language: str = "en",
    split: str = "all",
    scheme: str = "IOB2",
    lenient: bool = False,
    encoding: str = "utf-8",
) -> Dataset:
    """Read one split directory (``seq.in``/``seq.out``/``label``) into a :class:`Dataset`.

    ``scheme``/``lenient`` are as in :func:`~tokstudy.data.conll.read_conll` (the
    SNIPS and ATIS tags are valid IOB2). ``Sentence.line`` is the utterance's line,
    the same in all three files. ``metadata["raw_tags"]`` is ``False`` when tags were
    converted or repaired.
    """
    directory = Path(directory)
    paths = [directory / f for f in FILES]
    columns = [list(iter_lines(p, encoding=encoding)) for p in paths]  # each raises on a missing/empty file
    counts = [len(c) for c in columns]
    if len(set(counts)) != 1:
        described = ", ".join(f"{f} has {n}" for f, n in zip(FILES, counts))
        shortest = min(range(3), key=lambda i: counts[i])
        raise DataFormatError(
            f"the three files must be line-aligned but {described} lines; expected the same count "
            f"(first line missing from {FILES[shortest]}: {counts[shortest] + 1})",
            path=paths[shortest] if counts[shortest] else directory,
            line=counts[shortest] + 1,
        )
    sentences = []
    repaired, repairs = 0, []
    spath_out = str(paths[1])
    for k, ((number, text_in), (_, text_out), (_, label)) in enumerate(zip(*columns)):
        words = text_in.split()
        tags = text_out.split()
        if len(words) != len(tags):
            raise DataFormatError(
                f"{len(words)} words in seq.in but {len(tags)} tags in seq.out on this line; expected one "
                f"tag per word ({paths[0]}:{number})",
                path=paths[1],
                line=number,
            )
        if not words:
            raise DataFormatError("empty utterance; expected at least one word", path=paths[0], line=number)
        label = label.strip()
        if not label:
            raise DataFormatError("empty intent label; expected one intent per line", path=paths[2], line=number)
        iob2, fixed = to_iob2(
            tags, scheme, lenient=lenient, path=spath_out, lines=[number] * len(tags), repairs=repairs
        )
        repaired += fixed
        sentences.append(Sentence(words=tuple(words), tags=iob2, doc_id=0, sent_id=k, label=label, line=number))
    return Dataset(
        sentences=tuple(sentences),
        name=name,
        language=language,
        split=split,
        source=str(directory),
        repaired=repaired,
        metadata={"scheme": scheme, "lenient": lenient, "intents": sorted({s.label for s in sentences})},
        repair_log=RepairLog.of(repairs, source=spath_out),
    )
