"""Per-word model predictions: the file the fine-tuning step writes and ``tokstudy correlate`` reads.

Two line formats are read, detected per line:

* **tokstudy format** (what :func:`write_predictions` writes): UTF-8 text; optional
  leading metadata comments ``# key=value key=value ...``; then one word per line,
  ``word<TAB>gold<TAB>pred``; a blank line between sentences; an optional
  ``# sent_id = N`` comment before a sentence. Words may contain spaces (the tab
  is the separator), never tabs or newlines.
* **conlleval format**: whitespace-separated ``word ... gold pred`` (the last two
  columns are the gold and predicted tags), blank lines between sentences,
  ``-DOCSTART-`` lines skipped.

A line with a tab is read as the tokstudy format (exactly three fields); a line
without one as conlleval (at least three fields). Every error names the file and line.

>>> from pathlib import Path
>>> p = Path("/tmp/_pred_demo.tsv")
>>> _ = write_predictions(p, [(["EU", "rejects"], ["B-ORG", "O"], ["B-ORG", "B-MISC"])], metadata={"model": "m"})
>>> preds = read_predictions(p)
>>> preds.metadata["model"], preds.sentences[0].pred
('m', ('B-ORG', 'B-MISC'))
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tokstudy.data.textio import iter_lines
from tokstudy.errors import DataFormatError


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
                f"sentence {self.sent_id}: {len(self.words)} words, {len(self.gold)} gold tags, {len(self.pred)} predicted tags"
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

    Raises ``ValueError`` for ragged sentences or words containing a tab or newline.
    """
    path = Path(path)
    metadata = dict(metadata or {})
    for key, value in metadata.items():
        key, value = str(key), str(value)
        if not key or any(c in key for c in " \t\n=#") or any(c in value for c in "\t\n"):
            raise ValueError(f"metadata {key!r}={value!r}: keys must be single words, values must not hold tabs/newlines")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
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
                    for what, v in (("word", w), ("gold tag", g), ("predicted tag", p)):
                        if not v or "\t" in v or "\n" in v or (what != "word" and " " in v):
                            raise ValueError(f"sentence {sid}: {what} {v!r} is empty or contains a tab/newline/space")
                    fh.write(f"{w}\t{g}\t{p}\n")
                fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def read_predictions(path: str | os.PathLike) -> Predictions:
    """Read a predictions file (tokstudy or conlleval format, plain or ``.gz``).

    Raises :class:`~tokstudy.errors.DataFormatError` naming the file and line for a
    wrong number of columns, a stray ``# sent_id`` value, or a file with no words.
    """
    metadata: dict[str, str] = {}
    sentences: list[PredictedSentence] = []
    words: list[str] = []
    gold: list[str] = []
    pred: list[str] = []
    start_line: int | None = None
    pending_id: int | None = None
    in_header = True

    def flush() -> None:
        nonlocal words, gold, pred, start_line, pending_id
        if words:
            sid = pending_id if pending_id is not None else len(sentences)
            sentences.append(PredictedSentence(tuple(words), tuple(gold), tuple(pred), sid, start_line))
            words, gold, pred = [], [], []
            pending_id = None
        start_line = None

    for lineno, text in iter_lines(path, allow_empty=True):
        if text.startswith("#"):
            body = text[1:].strip()
            if body.replace(" ", "").startswith("sent_id="):
                flush()
                value = body.split("=", 1)[1].strip()
                try:
                    pending_id = int(value)
                except ValueError:
                    raise DataFormatError(f"sent_id {value!r} is not an integer", path=path, line=lineno) from None
                in_header = False
                continue
            if in_header and not words and not sentences:
                metadata.update(_metadata_pairs(body))
                continue
            # a comment later in the file carries no data
            continue
        if not text.strip():
            flush()
            continue
        if text.startswith("-DOCSTART-"):
            flush()
            continue
        in_header = False
        if "\t" in text:
            fields = text.split("\t")
            if len(fields) != 3:
                raise DataFormatError(
                    f"expected 3 tab-separated columns (word, gold, pred), found {len(fields)}", path=path, line=lineno
                )
            w, g, p = fields
        else:
            fields = text.split()
            if len(fields) < 3:
                raise DataFormatError(
                    f"expected at least 3 columns (word ... gold pred), found {len(fields)}: {text!r}",
                    path=path,
                    line=lineno,
                )
            w, g, p = fields[0], fields[-2], fields[-1]
        if not w or not g.strip() or not p.strip():
            raise DataFormatError("empty word or tag", path=path, line=lineno)
        if start_line is None:
            start_line = lineno
        words.append(w)
        gold.append(g.strip())
        pred.append(p.strip())
    flush()
    if not sentences:
        raise DataFormatError("no predicted words found; expected lines 'word<TAB>gold<TAB>pred'", path=path)
    return Predictions(tuple(sentences), metadata, str(path))


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
