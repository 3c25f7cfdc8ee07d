"""Streamed raw-text corpora: one sentence (or paragraph) per line, a blank line between documents.

Many files, plain or ``.gz``, are read one line at a time, so a corpus much larger
than memory can be sampled, tokenized or turned into pre-training examples.

>>> from pathlib import Path; p = Path("/tmp/_raw_demo.txt"); _ = p.write_text("a b\\nc\\n\\nd\\n")
>>> [d.lines for d in read_raw_text([p])]
[('a b', 'c'), ('d',)]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from tokstudy.data.textio import iter_lines

PathLike = str | os.PathLike


@dataclass(frozen=True, slots=True)
class Document:
    """A run of non-blank lines between blank lines.

    Attributes:
        lines: the document's sentences or paragraphs, stripped.
        source: the file it came from.
        line: 1-based line of its first sentence in that file.
        language: language code, from the caller or the file name (``en.txt.gz`` -> ``en``).
    """

    lines: tuple[str, ...]
    source: str
    line: int
    language: str | None = None


def language_of(path: PathLike) -> str:
    """Language code from a ``<lang>.txt[.gz]`` file name."""
    return Path(path).name.split(".")[0]


def iter_sentences(paths: PathLike | Iterable[PathLike]) -> Iterator[str]:
    """Every non-blank line of every file, stripped, in order (streamed)."""
    for path in _as_paths(paths):
        for _, text in iter_lines(path):
            text = text.strip()
            if text:
                yield text


def read_raw_text(paths: PathLike | Iterable[PathLike], *, language: str | None = None) -> Iterator[Document]:
    """Documents of every file, in order (streamed).

    ``language`` defaults to the code in each file's name.
    """
    for path in _as_paths(paths):
        lang = language or language_of(path)
        buf: list[str] = []
        start = 0
        for number, text in iter_lines(path):
            text = text.strip()
            if text:
                if not buf:
                    start = number
                buf.append(text)
            elif buf:
                yield Document(tuple(buf), str(path), start, lang)
                buf = []
        if buf:
            yield Document(tuple(buf), str(path), start, lang)


def _as_paths(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = Path(p)
        out.extend(sorted(q for q in p.iterdir() if q.is_file() and not q.name.endswith(".md")) if p.is_dir() else [p])
    return out
