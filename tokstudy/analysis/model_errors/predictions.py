"""Per-word model predictions: the file the fine-tuning step writes and ``tokstudy correlate`` reads.

Two line formats are read, detected per line:

* **tokstudy format** (what :func:`write_predictions` writes): UTF-8 text; optional
  leading metadata comments ``# key=value key=value ...``; then one word per line,
  ``word<TAB>gold<TAB>pred``; a blank line between sentences; an optional
  ``# sent_id = N`` comment before a sentence. Words may contain spaces (the tab
  is the separator) and start with ``#`` (a line with a tab is never a comment).
  Files whose first line is :data:`ESCAPES_LINE` (every file the writer writes) escape
  backslash, tab, LF and CR in words as ``\\``, ``\t``, ``\n``, ``\r``, so any word
  round-trips; older files without that line are read verbatim.
* **conlleval format**: whitespace-separated ``word ... gold pred`` (the last two
  columns are the gold and predicted tags), blank lines between sentences,
  ``-DOCSTART-`` lines skipped. A line that starts with ``#`` is a comment unless its
  last two columns are tags (``#hashtag O O`` is a word).

A line with a tab is read as the tokstudy format (exactly three fields); a line
without one as conlleval (at least three fields). Tags must be ``O`` or ``B-``/``I-``
followed by a type (IOB2): anything else (``FOO``, ``B-``) is refused, not counted as
an error of the model. Every error names the file and line; the first 20 bad lines are
listed, with the total.

>>> from pathlib import Path
>>> p = Path("/tmp/_pred_demo.tsv")
>>> _ = write_predictions(p, [(["EU", "rejects"], ["B-ORG", "O"], ["B-ORG", "B-MISC"])], metadata={"model": "m"})
>>> preds = read_predictions(p)
>>> preds.metadata["model"], preds.sentences[0].pred
('m', ('B-ORG', 'B-MISC'))
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tokstudy.data.textio import Problems, iter_lines
from tokstudy.errors import DataFormatError
from tokstudy.fileio import atomic_file

#: first line of every file :func:`write_predictions` writes: words in it are backslash-escaped
ESCAPES_LINE = "# tokstudy-predictions escapes=backslash"
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def escape_word(word: str) -> str:
    r"""A word as the tokstudy format writes it: backslash, tab, LF and CR escaped.

    >>> escape_word("a\tb\\c")
    'a\\tb\\\\c'
    """
    if not any(c in word for c in "\\\t\n\r"):
        return word
    return "".join(_ESCAPES.get(c, c) for c in word)


def unescape_word(text: str) -> str:
    r"""The word :func:`escape_word` escaped; raises ``ValueError`` on an unknown escape.

    >>> unescape_word(escape_word("x\n\\y")) == "x\n\\y"
    True
    """
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 >= len(text) or text[i + 1] not in _UNESCAPES:
                raise ValueError(f"unknown escape {text[i : i + 2]!r} in word {text!r}; expected \\\\, \\t, \\n or \\r")
            out.append(_UNESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def is_iob2_tag(tag: str) -> bool:
    """``O``, or ``B-``/``I-`` and a type without whitespace.

    >>> [is_iob2_tag(t) for t in ("O", "B-PER", "I-fromloc.city_name", "B-", "FOO", "S-LOC")]
    [True, True, True, False, False, False]
    """
    return tag == "O" or (len(tag) > 2 and tag[0] in "BI" and tag[1] == "-" and not any(c.isspace() for c in tag))


@dataclass(frozen=True, slots=True)
class PredictedSentence:
    """One sentence of predictions.

    Attributes:
        words: the words, as the model saw them.
        gold: the gold tag of each word.
        pred: the predicted tag of each word.
        sent_id: the ``# sent_id = N`` value when the file gives one, else the
            0-based position of the sentence in the file.
        line: 1-based line of the sentence's first word in the file.
    """

    words: tuple[str, ...]
    gold: tuple[str, ...]
    pred: tuple[str, ...]
    sent_id: int = 0
    line: int | None = None

    def __post_init__(self) -> None:
        if not (len(self.words) == len(self.gold) == len(self.pred)):
            raise ValueError(
                f"sentence {self.sent_id}: {len(self.words)} words, {len(self.gold)} gold tags, "
                f"{len(self.pred)} predicted tags"
            )

    def __len__(self) -> int:
        return len(self.words)


@dataclass(frozen=True)
class Predictions:
    """All the predicted sentences of one file, plus its metadata.

    Attributes:
        sentences: the sentences, in file order.
        metadata: ``key=value`` pairs of the leading comments (dataset, split,
            language, model, seed, ...), as strings.
        source: the file they were read from (``None`` when built in memory).
    """

    sentences: tuple[PredictedSentence, ...]
    metadata: dict = field(default_factory=dict)
    source: str | None = None

    def __len__(self) -> int:
        return len(self.sentences)

    def __iter__(self) -> Iterator[PredictedSentence]:
        return iter(self.sentences)

    @property
    def n_words(self) -> int:
        return sum(len(s) for s in self.sentences)


def write_predictions(
    path: str | os.PathLike,
    sentences: Iterable[tuple[Sequence[str], Sequence[str], Sequence[str]]],
    *,
    metadata: dict | None = None,
    sent_ids: Sequence[int] | None = None,
) -> Path:
    """Write ``(words, gold_tags, pred_tags)`` sentences in the tokstudy format, atomically.

    The file is written to a temporary name in the same directory and renamed into
    place, so a crash never leaves a half-written file that looks complete.
    ``metadata`` values must not contain whitespace-free-breaking characters
    (newline, tab); keys must be single words. ``sent_ids``, if given, is written
    as a ``# sent_id = N`` comment before each sentence (default: 0, 1, 2, ...).

    Words may hold any character (escaped as the module docstring says); the file
    follows the user's umask like any file they create.

    Raises ``ValueError`` for ragged sentences, an empty word, or a tag that is not IOB2.
    """
    path = Path(path)
    metadata = dict(metadata or {})
    for key, value in metadata.items():
        key, value = str(key), str(value)
        if not key or any(c in key for c in " \t\n=#") or any(c in value for c in "\t\n"):
            raise ValueError(
                f"metadata {key!r}={value!r}: keys must be single words, values must not hold tabs/newlines"
            )
    with atomic_file(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(ESCAPES_LINE + "\n")
        if metadata:
            # one key per line: values may contain spaces, which a single line could not separate
            for key, value in metadata.items():
                fh.write(f"# {key}={value}\n")
            fh.write("\n")
        for i, (words, gold, pred) in enumerate(sentences):
            if not (len(words) == len(gold) == len(pred)):
                raise ValueError(f"sentence {i}: {len(words)} words, {len(gold)} gold tags, {len(pred)} predicted tags")
            sid = i if sent_ids is None else int(sent_ids[i])
            fh.write(f"# sent_id = {sid}\n")
            for w, g, p in zip(words, gold, pred):
                if not w:
                    raise ValueError(f"sentence {sid}: empty word")
                for what, v in (("gold tag", g), ("predicted tag", p)):
                    if not is_iob2_tag(v):
                        raise ValueError(f"sentence {sid}: {what} {v!r} is not an IOB2 tag (O, B-TYPE or I-TYPE)")
                fh.write(f"{escape_word(w)}\t{g}\t{p}\n")
            fh.write("\n")
    return path


def read_predictions(path: str | os.PathLike, *, encoding: str = "utf-8") -> Predictions:
    """Read a predictions file (tokstudy or conlleval format, plain or gzip).

    Raises :class:`~tokstudy.errors.DataFormatError` naming the file and line for a
    wrong number of columns, a tag that is not IOB2, an unknown escape, a stray
    ``# sent_id`` value, or a file with no words; up to 20 bad lines are listed.
    """
    reader = _PredictionsReader(path)
    for lineno, text in iter_lines(path, allow_empty=True, encoding=encoding):
        reader.line(lineno, text)
    reader.flush()
    reader.problems.raise_if_any()
    if not reader.sentences:
        raise DataFormatError("no predicted words found; expected lines 'word<TAB>gold<TAB>pred'", path=path)
    return Predictions(tuple(reader.sentences), reader.metadata, str(path))


class _PredictionsReader:
    """The state of :func:`read_predictions` as it goes through a file's lines: the sentence being read, the
    header's metadata, whether words are escaped (the tokstudy format), and the problems found."""

    def __init__(self, path: str | os.PathLike):
        self.metadata: dict[str, str] = {}
        self.sentences: list[PredictedSentence] = []
        self.problems = Problems(path)
        self._words: list[str] = []
        self._gold: list[str] = []
        self._pred: list[str] = []
        self._start_line: int | None = None
        self._pending_id: int | None = None
        self._in_header = True
        self._escaped = False
        self._valid_tags: set[str] = set()  # a file has few distinct tags: each is checked once

    def flush(self) -> None:
        """End the sentence being read (a blank line, a ``sent_id``, a ``-DOCSTART-`` or the end of the file)."""
        if self._words:
            sid = self._pending_id if self._pending_id is not None else len(self.sentences)
            self.sentences.append(
                PredictedSentence(tuple(self._words), tuple(self._gold), tuple(self._pred), sid, self._start_line)
            )
            self._words, self._gold, self._pred = [], [], []
            self._pending_id = None
        self._start_line = None

    def line(self, lineno: int, text: str) -> None:
        tabbed = "\t" in text
        if lineno == 1 and text == ESCAPES_LINE:
            self._escaped = True
        elif not tabbed and text.startswith("#") and not _conlleval_word(text):
            self._comment(lineno, text[1:].strip())
        elif not text.strip() or (text.startswith("-DOCSTART-") and not self._escaped):
            self.flush()  # the writer never writes -DOCSTART-: in its format a word there is a word
        else:
            self._in_header = False
            fields = self._fields(lineno, text, tabbed)
            if fields is not None:
                self._add(lineno, *fields)

    def _comment(self, lineno: int, body: str) -> None:
        if body.replace(" ", "").startswith("sent_id="):
            self.flush()
            value = body.split("=", 1)[1].strip()
            try:
                self._pending_id = int(value)
            except ValueError:
                self.problems.add(lineno, f"sent_id {value!r} is not an integer")
            self._in_header = False
        elif self._in_header and not self._words and not self.sentences:
            self.metadata.update(_metadata_pairs(body))
        # a comment later in the file carries no data

    def _fields(self, lineno: int, text: str, tabbed: bool) -> tuple[str, str, str] | None:
        """``(word, gold, pred)`` of a word line, or ``None`` (with a problem noted) where it has none."""
        if tabbed:
            fields = text.split("\t")
            if len(fields) != 3:
                self.problems.add(lineno, f"expected 3 tab-separated columns (word, gold, pred), found {len(fields)}")
                return None
            w, g, p = fields
            if self._escaped:
                try:
                    w = unescape_word(w)
                except ValueError as exc:
                    self.problems.add(lineno, str(exc))
                    return None
        else:
            fields = text.split()
            if len(fields) < 3:
                self.problems.add(
                    lineno, f"expected at least 3 columns (word ... gold pred), found {len(fields)}: {text!r}"
                )
                return None
            w, g, p = fields[0], fields[-2], fields[-1]
        return w, g.strip(), p.strip()

    def _add(self, lineno: int, w: str, g: str, p: str) -> None:
        if not w:
            self.problems.add(lineno, "empty word")
            return
        if g not in self._valid_tags or p not in self._valid_tags:
            bad = [f"{what} tag {t!r}" for what, t in (("gold", g), ("predicted", p)) if not is_iob2_tag(t)]
            if bad:
                self.problems.add(lineno, f"{' and '.join(bad)} outside the IOB2 scheme; expected O, B-TYPE or I-TYPE")
                return
            self._valid_tags.update((g, p))
        if self._start_line is None:
            self._start_line = lineno
        self._words.append(w)
        self._gold.append(g)
        self._pred.append(p)


def _conlleval_word(text: str) -> bool:
    """Whether a tab-less line starting with ``#`` is a conlleval word line (``#hashtag O B-PER``)."""
    fields = text.split()
    return len(fields) >= 3 and is_iob2_tag(fields[-2]) and is_iob2_tag(fields[-1])


def _metadata_pairs(body: str) -> dict[str, str]:
    """``key=value`` pairs of one header comment.

    ``dataset=conll2003 split=test`` (every word a pair) gives several pairs;
    ``model=my model dir`` (what the writer emits, one key per line) gives one pair
    whose value keeps its spaces. A comment without ``=`` gives nothing.
    """
    tokens = body.split()
    if len(tokens) > 1 and all("=" in t and not t.startswith("=") for t in tokens):
        return dict(t.split("=", 1) for t in tokens)
    key, sep, value = body.partition("=")
    key = key.strip()
    if not sep or not key or " " in key:
        return {}
    return {key: value.strip()}
