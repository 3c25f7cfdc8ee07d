"""Exceptions that name the place where input went wrong.

Every reader and loader raises one of these instead of returning a silently
wrong count. The message always carries the file and, where it applies, the
1-based line number, so a researcher can open the file at the right place.

>>> str(DataFormatError("tags expected", path="eng.train", line=12))
'eng.train:12: tags expected'
"""

from __future__ import annotations

from os import PathLike


class TokstudyError(Exception):
    """Base class of every error tokstudy raises on purpose."""


class DataFormatError(TokstudyError, ValueError):
    """Input data is malformed: ragged columns, bad tags, bad encoding, ...

    Attributes:
        path: the file that was being read (or ``None`` for in-memory data).
        line: 1-based line number in that file, when known.
        reason: what was wrong and what was expected.
    """

    def __init__(self, reason: str, *, path: str | PathLike | None = None, line: int | None = None):
        self.reason = reason
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        if self.path is None:
            return self.reason if self.line is None else f"line {self.line}: {self.reason}"
        if self.line is None:
            return f"{self.path}: {self.reason}"
        return f"{self.path}:{self.line}: {self.reason}"


class TagSchemeError(DataFormatError):
    """A tag is outside the label scheme, or a transition the scheme forbids."""


class AlignmentError(TokstudyError, ValueError):
    """Two word sequences that should line up (predictions vs dataset, pieces vs words) do not."""


class TokenizerLoadError(TokstudyError, OSError):
    """A tokenizer could not be loaded from the given path or name."""


class TokenizerTrainingError(TokstudyError, ValueError):
    """Tokenizer training was asked for something the corpus cannot give (e.g. too large a vocabulary)."""


class DataNotFoundError(TokstudyError, FileNotFoundError):
    """A dataset or corpus is not where the data location says it should be."""
