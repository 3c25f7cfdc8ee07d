"""Paragraph-aligned parallel text (``xquad_parallel``): ``<lang>.txt[.gz]``, one paragraph per
line, blank line = article.

Paragraph *i* of every language is a translation of paragraph *i* of the others, which
makes the set the fair ground for comparing tokenizer fertility across scripts. The
reader checks that alignment: every language must have the same number of articles
and the same number of paragraphs in each article.

>>> import gzip, tempfile; from pathlib import Path; d = Path(tempfile.mkdtemp())
>>> _ = (d / "en.txt").write_text("One.\\nTwo.\\n\\nThree.\\n")
>>> _ = (d / "de.txt").write_text("Eins.\\nZwei.\\n\\nDrei.\\n")
>>> read_parallel(d)
{'de': ['Eins.', 'Zwei.', 'Drei.'], 'en': ['One.', 'Two.', 'Three.']}
>>> read_parallel_articles(d)["en"]
[['One.', 'Two.'], ['Three.']]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from tokstudy.data.rawtext import read_raw_text
from tokstudy.errors import AlignmentError, DataNotFoundError


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
