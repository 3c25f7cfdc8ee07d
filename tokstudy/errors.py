"""Exceptions that name the place where input went wrong.

Every reader and loader raises one of these instead of returning a silently
wrong count. The message always carries the file and, where it applies, the
1-based line number, so a researcher can open the file at the right place.

>>> str(DataFormatError("tags expected", path="eng.train", line=12))
'eng.train:12: tags expected'
"""

from __future__ import annotations

from os import PathLike
from typing import Sequence


class TokstudyError(Exception):
    """Base class of every error tokstudy raises on purpose."""


class DataFormatError(TokstudyError, ValueError):
    """Input data is malformed: ragged columns, bad tags, bad encoding, ...

    Attributes:
        path: the file that was being read (or ``None`` for in-memory data).
        line: 1-based line number in that file, when known.
        reason: what was wrong and what was expected.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | PathLike | None = None,
        line: int | None = None,
        others: Sequence[tuple[int | None, str]] = (),
        total: int | None = None,
    ):
        self.reason = reason
        self.path = None if path is None else str(path)
        self.line = line
        #: further problems of the same file, ``(line, reason)``, as reported (at most 19)
        self.others = tuple(others)
        #: how many problems the file has in all (``>= 1 + len(others)``)
        self.total = max(total or 0, 1 + len(self.others))
        super().__init__(self._format())

    def _format(self) -> str:
        text = self._place(self.line, self.reason)
        for line, reason in self.others:
            text += "\n  " + self._place(line, reason)
        if self.total > 1:
            shown = 1 + len(self.others)
            more = f"; the first {shown} are shown" if shown < self.total else ""
            text += f"\n  ({self.total} problems in all{more})"
        return text

    def _place(self, line: int | None, reason: str) -> str:
        if self.path is None:
            return reason if line is None else f"line {line}: {reason}"
        if line is None:
            return f"{self.path}: {reason}"
        return f"{self.path}:{line}: {reason}"


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


class UsageError(TokstudyError, ValueError):
    """A command-line argument or API option is invalid (a value out of range, a malformed spec).

    The CLI reports it like argparse does a bad option: one line, exit status 2.
    """


class ConfigError(DataFormatError):
    """A configuration file or mapping is malformed: an unknown key, a value out of range, bad YAML.

    The message names the file (and line, for a syntax error) and the key or section at fault.
    """


class MissingDependencyError(TokstudyError, ImportError):
    """An optional dependency a command needs is not installed; the message names the ``pip install`` that adds it.

    The CLI reports it in one line (exit status 1), not as an internal error.
    """


class PretrainedNotFoundError(TokenizerLoadError, FileNotFoundError):
    """A model directory or Hugging Face hub name names nothing that can be read here.

    The path does not exist, and as a hub name the model is not in the Hugging Face cache while offline, or
    could not be downloaded; the one-line message names the model and the command that fetches it. A
    :class:`TokenizerLoadError` too, since ``-t`` takes a model as its tokenizer.
    """
