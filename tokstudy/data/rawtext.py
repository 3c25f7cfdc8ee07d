"""Raw text: streamed corpora, and paragraph-aligned parallel text.

A raw-text corpus has one sentence (or paragraph) per line and a blank line between documents. Many files,
plain or ``.gz``, are read one line at a time, so a corpus much larger than memory can be sampled, tokenized
or turned into pre-training examples.

>>> from pathlib import Path; p = Path("/tmp/_raw_demo.txt"); _ = p.write_text("a b\\nc\\n\\nd\\n")
>>> [d.lines for d in read_raw_text([p])]
[('a b', 'c'), ('d',)]

Parallel text (``xquad_parallel``) is raw text in one ``<lang>.txt[.gz]`` file per language, one paragraph per
line, a blank line between articles. Paragraph *i* of every language is a translation of paragraph *i* of the
others, which makes the set the fair ground for comparing tokenizer fertility across scripts. The reader
checks that alignment: every language must have the same number of articles and the same number of
paragraphs in each article.

>>> import tempfile; d = Path(tempfile.mkdtemp())
>>> _ = (d / "en.txt").write_text("One.\\nTwo.\\n\\nThree.\\n")
>>> _ = (d / "de.txt").write_text("Eins.\\nZwei.\\n\\nDrei.\\n")
>>> read_parallel(d)
{'de': ['Eins.', 'Zwei.', 'Drei.'], 'en': ['One.', 'Two.', 'Three.']}
>>> read_parallel_articles(d)["en"]
[['One.', 'Two.'], ['Three.']]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from tokstudy.data.textio import iter_lines
from tokstudy.errors import AlignmentError, DataNotFoundError

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


def language_files(directory: str | os.PathLike) -> dict[str, Path]:
    """``{lang: path}`` for every ``<lang>.txt`` or ``<lang>.txt.gz`` in ``directory``."""
    directory = Path(directory)
    if not directory.is_dir():
        raise DataNotFoundError(f"{directory}: parallel-text directory not found")
    out = {}
    for p in sorted(directory.iterdir()):
        if p.is_file() and (p.name.endswith(".txt") or p.name.endswith(".txt.gz")):
            out[p.name.split(".")[0]] = p
    if not out:
        raise DataNotFoundError(f"{directory}: no <lang>.txt[.gz] files")
    return out


def read_parallel_articles(
    directory: str | os.PathLike, languages: Iterable[str] | None = None
) -> dict[str, list[list[str]]]:
    """``{lang: [article paragraphs, ...]}``, checked to have the same layout in every language.

    Raises :class:`AlignmentError` naming the file, the article and where it starts
    when a language has a different number of articles or of paragraphs in one article.
    """
    files = language_files(directory)
    wanted = sorted(files) if languages is None else list(languages)
    missing = [lang for lang in wanted if lang not in files]
    if missing:
        raise DataNotFoundError(f"{directory}: no file for language(s) {missing}; found {sorted(files)}")
    articles: dict[str, list[list[str]]] = {}
    starts: dict[str, list[int]] = {}
    for lang in wanted:
        docs = list(read_raw_text(files[lang], language=lang))
        articles[lang] = [list(d.lines) for d in docs]
        starts[lang] = [d.line for d in docs]
    ref = wanted[0]
    ref_layout = [len(a) for a in articles[ref]]
    for lang in wanted[1:]:
        layout = [len(a) for a in articles[lang]]
        if len(layout) != len(ref_layout):
            raise AlignmentError(
                f"{files[lang]}: {len(layout)} articles but {files[ref]} has {len(ref_layout)}; "
                "expected the same articles (blank-line separated) in every language"
            )
        for k, (n, m) in enumerate(zip(layout, ref_layout)):
            if n != m:
                raise AlignmentError(
                    f"{files[lang]}:{starts[lang][k]}: article {k} has {n} paragraphs but in {files[ref]} "
                    f"(line {starts[ref][k]}) it has {m}; expected the same paragraphs per article"
                )
    return articles


def read_parallel(directory: str | os.PathLike, languages: Iterable[str] | None = None) -> dict[str, list[str]]:
    """``{lang: paragraphs}`` with paragraph *i* aligned across languages (layout checked).

    ``languages`` defaults to every ``<lang>.txt[.gz]`` file in ``directory``.
    """
    return {
        lang: [p for article in arts for p in article]
        for lang, arts in read_parallel_articles(directory, languages).items()
    }
