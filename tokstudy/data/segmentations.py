"""Gold morpheme segmentations: SIGMORPHON 2022 word-level files and MorphScore CSVs, read into one shape.

Two formats, one record per word (:class:`GoldWord`): the word, its gold morpheme boundaries as
character offsets inside it, and (MorphScore only) the one boundary of interest.

* **SIGMORPHON 2022** (``word<TAB>morph @@morph ...<TAB>category``, the category optional): the morphs
  are separated by spaces, ``@@`` marks where a morph attaches (``in@@ accurate @@cy @@s``); a
  boundary falls between consecutive morphs. https://github.com/sigmorphon/2022SegmentationST
* **MorphScore** (Arnett & Bergen, https://github.com/catherinearnett/morphscore): a CSV with the
  columns ``full_word,pt1,rest`` (its files also have an unnamed index column first); the boundary of
  interest is where ``pt1`` ends. A CSV with the columns ``word,boundary`` (the boundary's character
  offset) is read the same way.

The morphs must spell the word: a surface segmentation is what a tokenizer's pieces can be compared
with. A line whose morphs do not (SIGMORPHON's English data is partly *canonical*: ``inaccuracies``
is ``in @@accurate @@cy @@s``), whose boundary is not strictly inside the word, or a file without
words is one :class:`~tokstudy.errors.DataFormatError` naming the file and line;
``skip_unspelled=True`` skips the lines whose morphs do not spell the word and keeps their places.

>>> from pathlib import Path; p = Path("/tmp/_seg_demo.tsv")
>>> _ = p.write_text("played\\tplay @@ed\\t100\\nhotpot\\thot @@pot\\t001\\n", encoding="utf-8")
>>> g = read_segmentations(p)
>>> g.format, g.language, [(w.word, w.boundaries) for w in g.words]
('sigmorphon', 'und', [('played', (4,)), ('hotpot', (3,))])
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tokstudy.data.textio import iter_lines
from tokstudy.errors import DataFormatError

FORMATS = ("auto", "sigmorphon", "morphscore")
#: how a file's language is read from its name when none is given: MorphScore's
#: ``english_morph_data.csv`` -> ``english``, SIGMORPHON's ``eng.word.dev.tsv`` -> ``eng``
_LANGUAGE_IN_NAME = re.compile(r"^(?P<lang>[^._]+)(?:_morph_data|\.word)")


@dataclass(frozen=True)
class GoldWord:
    """One word's gold segmentation.

    Attributes:
        word: the word as written.
        boundaries: gold morpheme boundaries, character offsets strictly inside the word, increasing.
        interest: MorphScore's boundary of interest (one of ``boundaries``), ``None`` for SIGMORPHON.
        category: SIGMORPHON's category (``110`` = inflection and derivation, ...), ``None`` when absent.
        line: 1-based line of the file.
    """

    word: str
    boundaries: tuple[int, ...]
    interest: int | None = None
    category: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class GoldSegmentations:
    """A file of gold segmentations.

    Attributes:
        words: one per line read, in file order.
        source: the file.
        format: ``"sigmorphon"`` or ``"morphscore"``.
        language: the language code, given or read from the file's name (``und`` otherwise).
        skipped: ``"line N: reason"`` of each line skipped with ``skip_unspelled``.
    """

    words: tuple[GoldWord, ...]
    source: str
    format: str
    language: str
    skipped: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.words)


def language_from_name(path: str | os.PathLike) -> str:
    """``english_morph_data.csv`` -> ``english``, ``hun.word.test.tsv`` -> ``hun``, else ``und``.

    >>> language_from_name("data/english_morph_data.csv"), language_from_name("eng.word.dev.tsv")
    ('english', 'eng')
    """
    m = _LANGUAGE_IN_NAME.match(Path(path).name)
    return m.group("lang") if m else "und"


def split_language(spec: str) -> tuple[str, str | None]:
    """``FILE@LANG`` -> ``(FILE, LANG)``; a spec without ``@LANG`` -> ``(spec, None)``.

    >>> split_language("eng.word.dev.tsv@en"), split_language("data/english_morph_data.csv")
    (('eng.word.dev.tsv', 'en'), ('data/english_morph_data.csv', None))
    """
    path, at, lang = spec.rpartition("@")
    if not at or not path or not lang or "/" in lang:
        return spec, None
    return path, lang


def read_segmentations(
    path: str | os.PathLike,
    *,
    format: str = "auto",
    language: str | None = None,
    skip_unspelled: bool = False,
    encoding: str = "utf-8",
) -> GoldSegmentations:
    """Read a gold segmentation file; ``format="auto"`` reads a ``.csv`` as MorphScore, else SIGMORPHON."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if format == "auto":
        format = "morphscore" if str(path).lower().endswith((".csv", ".csv.gz")) else "sigmorphon"
    read = _read_morphscore if format == "morphscore" else _read_sigmorphon
    words, skipped = read(path, skip_unspelled, encoding)
    if not words:
        what = "no words" + (f" ({len(skipped)} lines skipped: their morphs do not spell the word)" if skipped else "")
        expected = "word,pt1,rest rows" if format == "morphscore" else "word<TAB>morph @@morph ...<TAB>category lines"
        raise DataFormatError(f"{what}; expected {format} {expected}", path=path, line=1 if not skipped else None)
    return GoldSegmentations(tuple(words), str(path), format, language or language_from_name(path), tuple(skipped))


def _spelled(word: str, morphs: list[str], path, line: int) -> tuple[int, ...]:
    """The boundaries between ``morphs``, which must spell ``word``."""
    if "".join(morphs) != word:
        raise _Unspelled(f"the morphs {' + '.join(morphs)!r} do not spell the word {word!r}", path=path, line=line)
    offsets, at = [], 0
    for m in morphs[:-1]:
        at += len(m)
        offsets.append(at)
    return tuple(offsets)


class _Unspelled(DataFormatError):
    """A line whose morphs do not spell its word (skippable with ``skip_unspelled``)."""


def _read_sigmorphon(path, skip_unspelled: bool, encoding: str) -> tuple[list[GoldWord], list[str]]:
    words, skipped = [], []
    for n, text in iter_lines(path, encoding=encoding):
        if not text.strip():
            continue
        cols = text.split("\t")
        if len(cols) not in (2, 3) or not cols[0] or not cols[1].strip():
            raise DataFormatError(
                f"expected word<TAB>morph @@morph ...[<TAB>category], got {len(cols)} column(s): {text[:80]!r}",
                path=path,
                line=n,
            )
        morphs = [m.strip("@") for m in cols[1].split()]
        if any(not m for m in morphs):
            raise DataFormatError(f"an empty morph in {cols[1]!r}", path=path, line=n)
        try:
            bounds = _spelled(cols[0], morphs, path, n)
        except _Unspelled as exc:
            if not skip_unspelled:
                raise
            skipped.append(f"line {n}: {exc.reason}")
            continue
        category = cols[2].strip() if len(cols) == 3 and cols[2].strip() else None
        words.append(GoldWord(cols[0], bounds, None, category, n))
    return words, skipped


def _read_morphscore(path, skip_unspelled: bool, encoding: str) -> tuple[list[GoldWord], list[str]]:
    words, skipped, header = [], [], None
    for n, text in iter_lines(path, encoding=encoding):
        if not text.strip():
            continue
        cells = next(csv.reader([text]))
        if header is None:
            header = _header(cells, path, n)
            continue
        if len(cells) != len(header):
            raise DataFormatError(f"{len(cells)} columns, the header has {len(header)}", path=path, line=n)
        row = dict(zip(header, cells))
        try:
            words.append(_morphscore_word(row, path, n))
        except _Unspelled as exc:
            if not skip_unspelled:
                raise
            skipped.append(f"line {n}: {exc.reason}")
    return words, skipped


def _header(cells: list[str], path, line: int) -> list[str]:
    names = [c.strip() for c in cells]
    if {"full_word", "pt1", "rest"} <= set(names) or {"word", "boundary"} <= set(names):
        return names
    raise DataFormatError(
        f"MorphScore header expected (columns full_word,pt1,rest or word,boundary), got {','.join(names)[:80]!r}",
        path=path,
        line=line,
    )


def _morphscore_word(row: dict, path, line: int) -> GoldWord:
    if "full_word" in row:
        word, first, rest = row["full_word"], row["pt1"], row["rest"]
        boundary = len(first)
        if first + rest != word:
            raise _Unspelled(
                f"pt1 + rest ({first!r} + {rest!r}) does not spell full_word {word!r}", path=path, line=line
            )
    else:
        word, text = row["word"], row["boundary"].strip()
        if not text.lstrip("-").isdigit():
            raise DataFormatError(f"boundary {text!r} is not a character offset (an integer)", path=path, line=line)
        boundary = int(text)
    if not 0 < boundary < len(word):
        raise DataFormatError(
            f"the boundary of {word!r} is at character {boundary}, outside the word; expected 1 to {len(word) - 1}",
            path=path,
            line=line,
        )
    return GoldWord(word, (boundary,), boundary, None, line)
