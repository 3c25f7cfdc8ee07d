"""Per-piece model predictions: every piece of every word with its own label and probabilities.

The fine-tuner writes this file beside the per-word predictions (:mod:`.predictions`) when asked
(``piece_predictions``), as ``predictions.<split>.pieces.tsv`` (:func:`piece_predictions_path`);
``tokstudy pieces`` and :mod:`.piece_agreement` read it. UTF-8 text:

* line 1 is :data:`FORMAT_LINE`; then ``# key=value`` metadata lines, one of them ``# labels=O B-PER ...``
  (the model's labels in the order of the probability columns, space-separated);
* a header line (:data:`COLUMNS`), then one line per predicted piece, tab-separated:
  ``sent_id word_index word gold n_pieces piece_index piece label prob probabilities``, where ``label`` is the
  piece's best label, ``prob`` its probability, ``probabilities`` the softmax over every label (space-separated,
  in the order of ``labels``), ``n_pieces`` the word's pieces under the model's tokenizer.

A word longer than a model window keeps only the pieces that fit (the model never saw the others), so it may
have fewer piece lines than ``n_pieces``; every word has at least one. Words and pieces are backslash-escaped as
in :mod:`.predictions`. Every error names the file and line.

>>> import numpy as np
>>> p = Path("/tmp/_pieces_demo.tsv")
>>> w = PredictedWord("Lamb", "B-PER", 2, ("▁La", "mb"), np.array([[0.2, 0.8], [0.7, 0.3]]))
>>> _ = write_piece_predictions(p, ("O", "B-PER"), [PieceSentence(0, (w,))], metadata={"model": "m"})
>>> back = read_piece_predictions(p)
>>> back.labels, back.sentences[0].words[0].labels(back.labels)
(('O', 'B-PER'), ('B-PER', 'O'))
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from tokstudy.analysis.model_errors.predictions import (
    PredictedSentence,
    Predictions,
    escape_word,
    is_iob2_tag,
    unescape_word,
)
from tokstudy.analysis.model_errors.predictions_metadata import check_declared_count
from tokstudy.data.textio import Problems, iter_lines
from tokstudy.errors import DataFormatError
from tokstudy.fileio import atomic_file

FORMAT_LINE = "# tokstudy-piece-predictions/1 escapes=backslash"
COLUMNS = (
    "sent_id",
    "word_index",
    "word",
    "gold",
    "n_pieces",
    "piece_index",
    "piece",
    "label",
    "prob",
    "probabilities",
)
#: how far a piece's probabilities may sum from 1 (they are written with 7 significant digits)
SUM_TOLERANCE = 1e-4


def piece_predictions_path(predictions: str | os.PathLike) -> Path:
    """Where the per-piece file of a per-word predictions file lives.

    >>> piece_predictions_path("seed-1/predictions.test.tsv").name
    'predictions.test.pieces.tsv'
    """
    path = Path(predictions)
    stem = path.name[: -len(".tsv")] if path.name.endswith(".tsv") else path.name
    return path.with_name(f"{stem}.pieces.tsv")


@dataclass(frozen=True)
class PredictedWord:
    """One word and the model's output at each of its predicted pieces.

    Attributes:
        word: the word.
        gold: its gold tag.
        n_pieces: its pieces under the model's tokenizer (``probs`` may hold fewer: a truncated word).
        pieces: the text of each predicted piece.
        probs: ``[predicted pieces, labels]`` softmax probabilities.
        best: the best label id of each piece, as the model ranked it (kept exactly: a tie in the rounded
            probabilities of the file does not move it); ``None``: the argmax of ``probs``.
    """

    word: str
    gold: str
    n_pieces: int
    pieces: tuple[str, ...]
    probs: np.ndarray
    best: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.probs.ndim != 2 or self.probs.shape[0] != len(self.pieces) or not self.pieces:
            raise ValueError(f"word {self.word!r}: {len(self.pieces)} pieces but probabilities {self.probs.shape}")
        if self.best is None:
            object.__setattr__(self, "best", tuple(int(k) for k in self.probs.argmax(axis=1)))

    def labels(self, names: Sequence[str]) -> tuple[str, ...]:
        """Each piece's best label."""
        return tuple(names[k] for k in self.best)


@dataclass(frozen=True)
class PieceSentence:
    """One sentence: its id (as in the per-word file) and its words."""

    sent_id: int
    words: tuple[PredictedWord, ...]
    line: int | None = None


@dataclass(frozen=True)
class PiecePredictions:
    """A per-piece predictions file: the model's labels, the sentences, the metadata."""

    labels: tuple[str, ...]
    sentences: tuple[PieceSentence, ...]
    metadata: dict = field(default_factory=dict)
    source: str | None = None

    @property
    def n_words(self) -> int:
        return sum(len(s.words) for s in self.sentences)

    def word_predictions(self) -> Predictions:
        """The file's words as per-word predictions, each labelled by its first piece, with the file's metadata
        and source: what :func:`~tokstudy.analysis.model_errors.aligned_predictions.align_predictions` checks
        against a dataset, sentence by sentence and word by word, as it checks a per-word file."""
        sentences = tuple(
            PredictedSentence(
                tuple(w.word for w in s.words),
                tuple(w.gold for w in s.words),
                tuple(self.labels[w.best[0]] for w in s.words),
                s.sent_id,
                s.line,
            )
            for s in self.sentences
        )
        return Predictions(sentences, dict(self.metadata), self.source)


def write_piece_predictions(
    path: str | os.PathLike,
    labels: Sequence[str],
    sentences: Iterable[PieceSentence],
    *,
    metadata: dict | None = None,
) -> Path:
    """Write per-piece predictions atomically (format in the module docstring)."""
    labels = tuple(labels)
    bad = [t for t in labels if not is_iob2_tag(t)]
    if bad:
        raise ValueError(f"labels {bad} are not IOB2 tags")
    meta = {str(k): str(v) for k, v in (metadata or {}).items() if v is not None}
    for key, value in meta.items():
        if not key or any(c in key for c in " \t\n=#") or any(c in value for c in "\t\n"):
            raise ValueError(f"metadata {key!r}={value!r}: keys must be single words, values without tabs/newlines")
    with atomic_file(Path(path)) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(FORMAT_LINE + "\n")
        fh.write(f"# labels={' '.join(labels)}\n")
        fh.writelines(f"# {k}={v}\n" for k, v in meta.items())
        fh.write("\t".join(COLUMNS) + "\n")
        for sent in sentences:
            for i, w in enumerate(sent.words):
                if w.probs.shape[1] != len(labels):
                    raise ValueError(f"sentence {sent.sent_id}, word {i}: {w.probs.shape[1]} probabilities per piece")
                head = f"{sent.sent_id}\t{i}\t{escape_word(w.word)}\t{w.gold}\t{w.n_pieces}"
                for j, (piece, row, k) in enumerate(zip(w.pieces, w.probs, w.best)):
                    probs = " ".join(f"{p:.7g}" for p in row.tolist())
                    fh.write(f"{head}\t{j}\t{escape_word(piece)}\t{labels[k]}\t{row[k]:.7g}\t{probs}\n")
    return Path(path)


def read_piece_predictions(path: str | os.PathLike) -> PiecePredictions:
    """Read a per-piece predictions file.

    A malformed line is a :class:`~tokstudy.errors.DataFormatError` naming the file and line, one per bad line (a
    word's later pieces do not repeat it; up to 20 listed). Every piece of a word repeats the word, its gold tag
    and its ``n_pieces``. A file that declares ``subset=first:N`` but holds more than ``N`` sentences is refused
    (:func:`~tokstudy.analysis.model_errors.predictions_metadata.check_declared_count`)."""
    reader = _Reader(path)
    for lineno, text in iter_lines(path):
        reader.line(lineno, text)
    reader.problems.raise_if_any()
    if reader.labels is None:
        raise DataFormatError("no '# labels=...' line; not a tokstudy per-piece predictions file", path=path)
    sentences = reader.finish()
    reader.problems.raise_if_any()
    if not sentences:
        raise DataFormatError(f"no piece lines found; expected lines of {' '.join(COLUMNS)}", path=path)
    predictions = PiecePredictions(reader.labels, sentences, reader.metadata, str(path))
    check_declared_count(predictions, len(sentences))
    return predictions


@dataclass
class _WordLines:
    """The pieces of one word read so far, and what each later piece line must repeat of its first one."""

    line: int
    word: str
    gold: str
    n_pieces: int
    pieces: list[str] = field(default_factory=list)
    probs: list[np.ndarray] = field(default_factory=list)
    best: list[int] = field(default_factory=list)

    def mismatch(self, word: str, gold: str, n_pieces: int, piece_index: int) -> str | None:
        """What is wrong with a piece line of this word (``None``: nothing)."""
        for what, got, want in (
            ("word", word, self.word),
            ("gold", gold, self.gold),
            ("n_pieces", n_pieces, self.n_pieces),
        ):
            if got != want:
                return f"{what} {got!r}, but the word's first piece (line {self.line}) has {want!r}"
        if not 0 <= piece_index < n_pieces:
            return f"piece_index {piece_index} with n_pieces {n_pieces}; expected 0 <= piece_index < n_pieces"
        if piece_index != len(self.pieces):
            return f"piece {piece_index} where piece {len(self.pieces)} comes next (each piece once, in order)"
        return None


class _Reader:
    """The state of :func:`read_piece_predictions`: the header, and the piece lines grouped by sentence and word."""

    def __init__(self, path) -> None:
        self.path = path
        self.problems = Problems(path)
        self.labels: tuple[str, ...] | None = None
        self.metadata: dict[str, str] = {}
        self._header = False
        self._words: dict[tuple[int, int], _WordLines] = {}
        self._sentence_line: dict[int, int] = {}
        # words (their sent_id and word_index as written) with a bad line: its report stands for their later pieces
        self._broken: set[tuple[str, ...]] = set()

    def line(self, lineno: int, text: str) -> None:
        if lineno == 1:
            if text != FORMAT_LINE:
                # another kind of file: each of its later lines would only repeat this
                raise DataFormatError(
                    f"expected {FORMAT_LINE!r} (a tokstudy per-piece predictions file)", path=self.path, line=1
                )
            return
        if not self._header:
            self._head_line(lineno, text)
        elif text.strip():
            self._piece_line(lineno, text)

    def _head_line(self, lineno: int, text: str) -> None:
        if text.startswith("#"):
            key, eq, value = text[1:].strip().partition("=")
            if not eq:
                self.problems.add(lineno, f"expected '# key=value', found {text!r}")
            elif key == "labels":
                self.labels = tuple(value.split())
            else:
                self.metadata[key] = value
            return
        if text.split("\t") != list(COLUMNS):
            self.problems.add(lineno, f"expected the header line {' '.join(COLUMNS)!r}, found {text[:60]!r}")
            self._broken.add(tuple(text.split("\t")[:2]))  # were it a piece line, its word is reported
        # a damaged header ends the header all the same: the lines after it are read as piece lines
        self._header = True

    def _piece_line(self, lineno: int, text: str) -> None:
        fields = text.split("\t")
        key = tuple(fields[:2])
        if key in self._broken:
            return
        problem = self._add_piece(lineno, fields)
        if problem is not None:
            self.problems.add(lineno, problem)
            self._broken.add(key)

    def _add_piece(self, lineno: int, fields: list[str]) -> str | None:
        """Add the piece of one line to its word; what is wrong with the line instead, if anything."""
        if len(fields) != len(COLUMNS):
            return f"expected {len(COLUMNS)} tab-separated columns, found {len(fields)}"
        sid, wi, word, gold, n, pi, piece, label, _prob, probs = fields
        try:
            sid_, wi_, n_, pi_ = int(sid), int(wi), int(n), int(pi)
            row = np.array([float(p) for p in probs.split()], dtype=np.float64)
            word, piece = unescape_word(word), unescape_word(piece)
        except ValueError as exc:
            return f"not a piece line: {exc}"
        labels = self.labels or ()
        if len(row) != len(labels) or label not in labels or not is_iob2_tag(gold):
            return (
                f"expected {len(labels)} probabilities and a label among {list(labels)[:8]}, a gold IOB2 tag; "
                f"found {len(row)} probabilities, label {label!r}, gold {gold!r}"
            )
        if abs(row.sum() - 1.0) > SUM_TOLERANCE or (row < 0).any():
            return f"probabilities sum to {row.sum():.6f}; expected probabilities >= 0 that sum to 1"
        entry = self._words.setdefault((sid_, wi_), _WordLines(lineno, word, gold, n_))
        problem = entry.mismatch(word, gold, n_, pi_)
        if problem is not None:
            return f"sentence {sid_}, word {wi_}: {problem}"
        entry.pieces.append(piece)
        entry.probs.append(row)
        entry.best.append(labels.index(label))
        self._sentence_line.setdefault(sid_, lineno)
        return None

    def finish(self) -> tuple[PieceSentence, ...]:
        by_sentence: dict[int, list[PredictedWord]] = {}
        gaps: set[int] = set()  # sentences with a word missing: their later words would only repeat it
        for (sid, wi), w in self._words.items():
            words = by_sentence.setdefault(sid, [])
            if sid in gaps:
                continue
            if wi != len(words):
                self.problems.add(w.line, f"sentence {sid}: word {wi} follows word {len(words) - 1}")
                gaps.add(sid)
                continue
            words.append(PredictedWord(w.word, w.gold, w.n_pieces, tuple(w.pieces), np.stack(w.probs), tuple(w.best)))
        return tuple(PieceSentence(sid, tuple(ws), self._sentence_line[sid]) for sid, ws in by_sentence.items())
