"""Gold morpheme segmentations: SIGMORPHON 2022 word-level files and MorphScore CSVs, read into one shape.

Two formats, one record per word (:class:`GoldWord`): the word, its gold morpheme boundaries as
character offsets inside it, and (MorphScore only) the one boundary of interest.

* **SIGMORPHON 2022** (``word<TAB>morph @@morph ...<TAB>category``, the category optional): every morph
  after the first starts with the two-character marker ``@@`` after a space, so the morphs are what lies
  between the separators ``" @@"`` (the official evaluator's reading; spaces that end the column are dropped
  where the word ends in none); a boundary falls between consecutive morphs. Any other ``@`` or space is text:
  ``Latin@s`` is ``Latin@ @@s``, ``@ing`` is ``@ @@ing``, the multi-word ``mouth harpist`` is
  ``mouth harp @@ist``. https://github.com/sigmorphon/2022SegmentationST
* **MorphScore** (Arnett & Bergen, https://github.com/catherinearnett/morphscore): a CSV with the
  columns ``full_word,pt1,rest`` (its files also have an unnamed index column first); the boundary of
  interest is where ``pt1`` ends. A CSV with the columns ``word,boundary`` (the boundary's character
  offset) is read the same way.

The morphs must spell the word: a surface segmentation is what a tokenizer's pieces can be compared
with. That also settles a ``" @@"`` that could be text: of the readings that take each separator as a
boundary or as text, the one that spells the word is used (when every separator is a boundary and that
spells the word, no other reading can). An empty morph (``pheno @@ @@etic``, SIGMORPHON's canonical
zero morphs) adds no boundary.

Three kinds of line are refused with one :class:`~tokstudy.errors.DataFormatError` naming the file and line
unless ``skip_unspelled=True`` skips and counts them (:class:`SkippedLine`, by kind in :data:`SKIP_KINDS`):
morphs that do not spell the word (SIGMORPHON's English data is partly *canonical*: ``inaccuracies`` is
``in @@accurate @@cy @@s``), morphs that spell it in more than one way, and a MorphScore row whose ``pt1``
or ``rest`` is empty (no boundary inside the word: MorphScore's Turkish and Zulu files have such rows). A
boundary beyond the word, a malformed line or a file without words is refused whatever the option.

>>> from pathlib import Path; p = Path("/tmp/_seg_demo.tsv")
>>> _ = p.write_text("played\\tplay @@ed\\t100\\nLatin@s\\tLatin@ @@s\\t100\\n", encoding="utf-8")
>>> g = read_segmentations(p)
>>> g.format, g.language, [(w.word, w.boundaries) for w in g.words]
('sigmorphon', 'und', [('played', (4,)), ('Latin@s', (6,))])
"""

from __future__ import annotations

import csv
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tokstudy.data.textio import iter_lines
from tokstudy.errors import DataFormatError

FORMATS = ("auto", "sigmorphon", "morphscore")
#: how a file's language is read from its name when none is given: MorphScore's
#: ``english_morph_data.csv`` -> ``english``, SIGMORPHON's ``eng.word.dev.tsv`` -> ``eng``
_LANGUAGE_IN_NAME = re.compile(r"^(?P<lang>[^._]+)(?:_morph_data|\.word)")
#: what starts every SIGMORPHON morph after the first: a space, then the marker ``@@``
SEPARATOR = " @@"
#: kinds of line ``skip_unspelled`` skips, with what each means
UNSPELLED, AMBIGUOUS, NO_BOUNDARY = "unspelled", "ambiguous", "no-boundary"
SKIP_KINDS = {
    UNSPELLED: "the morphs do not spell the word",
    AMBIGUOUS: "the morphs spell the word in more than one way",
    NO_BOUNDARY: "pt1 or rest is empty: no boundary inside the word",
}


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
class SkippedLine:
    """A line ``skip_unspelled`` skipped; prints as ``line N: reason``.

    Attributes:
        line: 1-based line of the file.
        kind: one of :data:`SKIP_KINDS`.
        reason: what is wrong with it.
    """

    line: int
    kind: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass(frozen=True)
class GoldSegmentations:
    """A file of gold segmentations.

    Attributes:
        words: one per line read, in file order.
        source: the file.
        format: ``"sigmorphon"`` or ``"morphscore"``.
        language: the language code, given or read from the file's name (``und`` otherwise).
        skipped: each line skipped with ``skip_unspelled``, in file order.
    """

    words: tuple[GoldWord, ...]
    source: str
    format: str
    language: str
    skipped: tuple[SkippedLine, ...] = ()

    def __len__(self) -> int:
        return len(self.words)

    def skipped_note(self) -> str:
        """How many lines were skipped, of which kind, and the first (empty when none was).

        >>> skipped = (SkippedLine(2, NO_BOUNDARY, "rest is empty"),)
        >>> GoldSegmentations((), "t.csv", "morphscore", "tur", skipped).skipped_note()
        '1 lines skipped (1 x pt1 or rest is empty: no boundary inside the word); first: line 2: rest is empty'
        """
        if not self.skipped:
            return ""
        counts = Counter(s.kind for s in self.skipped)
        kinds = ", ".join(f"{counts[k]} x {what}" for k, what in SKIP_KINDS.items() if counts[k])
        return f"{len(self.skipped)} lines skipped ({kinds}); first: {self.skipped[0]}"


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
    words, skipped = [], []
    for n, got in read(path, encoding):
        if isinstance(got, GoldWord):
            words.append(got)
        elif skip_unspelled:
            skipped.append(SkippedLine(n, got.kind, got.reason))
        else:
            raise DataFormatError(got.reason, path=path, line=n)
    gold = GoldSegmentations(tuple(words), str(path), format, language or language_from_name(path), tuple(skipped))
    if not words:
        what = "no words" + (f" ({gold.skipped_note()})" if skipped else "")
        expected = "word,pt1,rest rows" if format == "morphscore" else "word<TAB>morph @@morph ...<TAB>category lines"
        raise DataFormatError(f"{what}; expected {format} {expected}", path=path, line=1 if not skipped else None)
    return gold


@dataclass(frozen=True)
class _Skippable:
    """Why a line cannot give a word, when ``skip_unspelled`` may skip it."""

    kind: str
    reason: str


def sigmorphon_morphs(segmentation: str, word: str) -> tuple[tuple[str, ...], int]:
    """The morphs of a SIGMORPHON segmentation that spell ``word``, and in how many ways it does (capped at 2).

    Each separator ``" @@"`` is read as a boundary or, where the word has it, as text; ``((), 0)`` when no
    reading spells the word. Readings are followed position by position in the word (the position tells how
    many separators were text so far), so a line with many separators costs no more than its length squared.

    >>> sigmorphon_morphs("@ @@ing", "@ing"), sigmorphon_morphs("a @@b", "a @@b")
    ((('@', 'ing'), 1), (('a @@b',), 1))
    >>> sigmorphon_morphs("x @@ @@y", "x @@y")[1], sigmorphon_morphs("pheno @@ @@etic @@ist", "pheneticist")
    (2, ((), 0))
    """
    parts = segmentation.split(SEPARATOR)
    # position in the word -> (the morphs of the first reading to get there, the last one still open; readings)
    states: dict[int, tuple[tuple[str, ...], int]] = {0: (("",), 1)}
    for i, part in enumerate(parts):
        grown: dict[int, tuple[tuple[str, ...], int]] = {}
        for at, (morphs, ways) in states.items():
            if word.startswith(part, at):
                _reach(grown, at + len(part), (*morphs[:-1], morphs[-1] + part), ways)
        if i == len(parts) - 1:
            states = grown
            break
        states = {}
        for at, (morphs, ways) in grown.items():
            _reach(states, at, (*morphs, ""), ways)  # the separator is a boundary
            if word.startswith(SEPARATOR, at):  # or text of the word
                _reach(states, at + len(SEPARATOR), (*morphs[:-1], morphs[-1] + SEPARATOR), ways)
    return states.get(len(word), ((), 0))


def _reach(states: dict, at: int, morphs: tuple[str, ...], ways: int) -> None:
    old = states.get(at)
    states[at] = (morphs, min(2, ways)) if old is None else (old[0], min(2, old[1] + ways))


def _read_sigmorphon(path, encoding: str):
    """``(line, GoldWord or _Skippable)`` per word line."""
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
        word, segmentation = cols[0], cols[1]
        if word == word.rstrip():  # spaces that end the column are not text of a word that has none at its end
            segmentation = segmentation.rstrip()
        morphs, ways = sigmorphon_morphs(segmentation, word)
        if ways != 1:
            yield n, _ambiguity(word, segmentation, ways)
            continue
        offsets, at = set(), 0
        for m in morphs:  # an empty morph adds no boundary; the word's ends are none
            at += len(m)
            offsets.add(at)
        category = cols[2].strip() if len(cols) == 3 and cols[2].strip() else None
        yield n, GoldWord(word, tuple(sorted(offsets - {0, len(word)})), None, category, n)


def _ambiguity(word: str, segmentation: str, ways: int) -> _Skippable:
    if ways == 0:
        morphs = " + ".join(segmentation.split(SEPARATOR))
        return _Skippable(UNSPELLED, f"the morphs {morphs!r} do not spell the word {word!r}")
    return _Skippable(
        AMBIGUOUS,
        f"the morphs {segmentation!r} spell the word {word!r} in more than one way (a ' @@' in the word can be "
        "text or a boundary); expected one",
    )


def _read_morphscore(path, encoding: str):
    """``(line, GoldWord or _Skippable)`` per row."""
    header = None
    for n, text in iter_lines(path, encoding=encoding):
        if not text.strip():
            continue
        cells = next(csv.reader([text]))
        if header is None:
            header = _header(cells, path, n)
            continue
        if len(cells) != len(header):
            raise DataFormatError(f"{len(cells)} columns, the header has {len(header)}", path=path, line=n)
        yield n, _morphscore_word(dict(zip(header, cells)), path, n)


def _header(cells: list[str], path, line: int) -> list[str]:
    names = [c.strip() for c in cells]
    if {"full_word", "pt1", "rest"} <= set(names) or {"word", "boundary"} <= set(names):
        return names
    raise DataFormatError(
        f"MorphScore header expected (columns full_word,pt1,rest or word,boundary), got {','.join(names)[:80]!r}",
        path=path,
        line=line,
    )


def _morphscore_word(row: dict, path, line: int) -> GoldWord | _Skippable:
    if "full_word" in row:
        word, first, rest = row["full_word"], row["pt1"], row["rest"]
        boundary = len(first)
        if first + rest != word:
            return _Skippable(UNSPELLED, f"pt1 + rest ({first!r} + {rest!r}) does not spell full_word {word!r}")
        empty = "pt1" if not first else "rest"
    else:
        word, text = row["word"], row["boundary"].strip()
        if not text.lstrip("-").isdigit():
            raise DataFormatError(f"boundary {text!r} is not a character offset (an integer)", path=path, line=line)
        boundary = int(text)
        empty = "the part before it" if boundary == 0 else "the part after it"
    if not word:
        raise DataFormatError("the word is empty; expected a word and its boundary", path=path, line=line)
    where = f"the boundary of {word!r} is at character {boundary}, outside the word"
    if boundary in (0, len(word)):  # MorphScore's Turkish and Zulu files have such rows (yendirt,yendirt,)
        return _Skippable(NO_BOUNDARY, f"{where} ({empty} is empty: no boundary inside it)")
    if not 0 < boundary < len(word):
        raise DataFormatError(f"{where}; expected 1 to {len(word) - 1}", path=path, line=line)
    return GoldWord(word, (boundary,), boundary, None, line)
