"""Multilingual document streams with temperature (exponential) sampling across languages.

Each language's text is measured in UTF-8 bytes (one streaming pass, no text kept). With
``q_l = bytes_l / bytes_total`` the sampling probability is ``p_l = q_l^alpha / sum_k q_k^alpha``
(XLM-R, alpha = 0.3; mBERT used 0.7 over sentences). The drawn corpus has the same total size as
the input, split by ``p_l``: language ``l`` is read ``r_l = p_l * total / bytes_l`` times over,
so with ``r_l = 2.4`` every document is drawn twice and then each with probability 0.4 in a
third pass, and with ``r_l = 0.3`` each document is kept with probability 0.3 (the whole file is
still spread over, not just its beginning). Languages are interleaved at random, weighted by the
bytes each still has to give, so every part of the stream is mixed. Only one document per
language is held at a time: memory does not grow with the corpus.

>>> language_probabilities({"en": 900, "sw": 100}, alpha=1.0)
{'en': 0.9, 'sw': 0.1}
>>> {k: round(v, 3) for k, v in language_probabilities({"en": 900, "sw": 100}, alpha=0.3).items()}
{'en': 0.659, 'sw': 0.341}
"""

from __future__ import annotations

import gzip
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import numpy as np

from tokstudy.data.rawtext import Document, language_of, read_raw_text
from tokstudy.datalocation import CORPORA, data_root
from tokstudy.errors import DataNotFoundError

_TEXT_SUFFIXES = (".txt", ".txt.gz", ".gz")


def resolve_inputs(inputs: Sequence[str], *, languages: Sequence[str] | None = None) -> dict[str, list[Path]]:
    """Language code -> text files, from paths or corpus names (``raw_text_large``, ``raw_text_large/en``).

    A name that is not an existing path is looked up under the data location
    (``$TOKSTUDY_DATA``); ``<corpus>/<lang>`` means ``<lang>.txt.gz`` (or ``.txt``) there.
    Folders contribute every text file in them (README files excluded), sorted by name.
    """
    files: list[Path] = []
    for item in inputs:
        files.extend(_resolve_one(str(item)))
    by_lang: dict[str, list[Path]] = {}
    for f in files:
        lang = language_of(f)
        if languages is None or lang in languages:
            by_lang.setdefault(lang, [])
            if f not in by_lang[lang]:
                by_lang[lang].append(f)
    if not by_lang:
        raise DataNotFoundError(f"no raw-text files for languages {languages} in inputs {list(inputs)}")
    return dict(sorted(by_lang.items()))


def _resolve_one(item: str) -> list[Path]:
    path = Path(item).expanduser()
    if not path.exists():
        head, _, rest = item.partition("/")
        if head in CORPORA:
            path = data_root() / CORPORA[head] / rest if rest else data_root() / CORPORA[head]
            if rest and not path.exists():
                path = next(
                    (
                        path.with_name(path.name + s)
                        for s in (".txt.gz", ".txt")
                        if path.with_name(path.name + s).exists()
                    ),
                    path,
                )
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(_TEXT_SUFFIXES))
    if path.is_file():
        return [path]
    raise DataNotFoundError(
        f"input {item!r} is neither a file, a folder, nor a corpus under the data location {data_root()} "
        f"(set TOKSTUDY_DATA; known corpora: {sorted(CORPORA)})"
    )


def text_bytes(path: Path) -> int:
    """Uncompressed size in bytes (a streaming pass for ``.gz``: exact, also for multi-member files)."""
    return measure_text(path)[0]


def measure_text(path: Path) -> tuple[int, int]:
    """(uncompressed bytes, approximate number of documents) of a raw-text file, in one streaming pass.

    Documents are counted as runs of blank-line separators (``\\n\\n``) plus one; it only weighs
    the interleaving of languages, so an off-by-a-few count does not matter.
    """
    opener = gzip.open if path.name.endswith(".gz") else open
    total = seps = 0
    prev = b""
    with opener(path, "rb") as f:
        while chunk := f.read(1 << 22):
            total += len(chunk)
            seps += (prev[-1:] + chunk).count(b"\n\n")
            prev = chunk
    return total, seps + 1


def language_probabilities(sizes: Mapping[str, float], *, alpha: float) -> dict[str, float]:
    """``p_l`` proportional to ``(size_l / total)^alpha`` (pure function; sizes in any unit)."""
    total = float(sum(sizes.values()))
    if total <= 0:
        raise ValueError("language sizes must sum to more than 0")
    w = {k: (v / total) ** alpha if v > 0 else 0.0 for k, v in sizes.items()}
    z = sum(w.values())
    return {k: v / z for k, v in w.items()}


@dataclass(frozen=True)
class LanguagePlan:
    """How much of one language is drawn: ``rate`` times its text (in expectation)."""

    language: str
    files: tuple[Path, ...]
    bytes: int
    documents: int
    probability: float
    rate: float

    @property
    def expected_bytes(self) -> float:
        return self.rate * self.bytes


def plan_languages(files: Mapping[str, Sequence[Path]], *, alpha: float) -> list[LanguagePlan]:
    """Measure every language and derive its sampling probability and read rate."""
    measured = {lang: [measure_text(Path(f)) for f in fs] for lang, fs in files.items()}
    sizes = {lang: sum(b for b, _ in m) for lang, m in measured.items()}
    docs = {lang: sum(d for _, d in m) for lang, m in measured.items()}
    probs = language_probabilities(sizes, alpha=alpha)
    total = sum(sizes.values())
    return [
        LanguagePlan(
            lang,
            tuple(Path(f) for f in files[lang]),
            sizes[lang],
            docs[lang],
            probs[lang],
            probs[lang] * total / sizes[lang] if sizes[lang] else 0.0,
        )
        for lang in sorted(files)
    ]


def document_bytes(doc: Document) -> int:
    """Size of a document as it sits in the file (lines and their newlines)."""
    return sum(len(line.encode("utf-8")) + 1 for line in doc.lines)


def _language_stream(plan: LanguagePlan, rng: np.random.Generator) -> Iterator[Document]:
    """Documents of one language over ``ceil(rate)`` passes; pass k keeps each with prob min(1, rate - k)."""
    for k in range(math.ceil(plan.rate)):
        keep = min(1.0, plan.rate - k)
        for doc in read_raw_text(plan.files, language=plan.language):
            if keep >= 1.0 or rng.random() < keep:
                yield doc


def sample_documents(plans: Sequence[LanguagePlan], *, seed: int) -> Iterator[Document]:
    """The interleaved, temperature-sampled stream of documents (deterministic for a seed).

    The next language is drawn with probability proportional to the documents it is still
    expected to give (so that bytes flow in the planned proportions all along, also when one
    language has long documents and another short ones); a language leaves the draw when its
    passes are done.
    """
    rng = np.random.default_rng([seed, 0x5EED])
    streams = {
        p.language: _language_stream(p, np.random.default_rng([seed, i])) for i, p in enumerate(plans) if p.rate > 0
    }
    remaining = {p.language: p.rate * p.documents for p in plans if p.rate > 0}
    while streams:
        langs = list(streams)
        # a small floor keeps a language drawable when it gives a little more than expected
        w = np.array([max(remaining[lang], 0.5) for lang in langs])
        lang = langs[int(rng.choice(len(langs), p=w / w.sum()))]
        doc = next(streams[lang], None)
        if doc is None:
            del streams[lang]
            continue
        remaining[lang] -= 1
        yield doc


# Sentence ends: Latin/Cyrillic/Greek/Armenian/Devanagari punctuation followed by space (group 1),
# or CJK full stops, which need no space (group 2), not before a closing quote or bracket.
# finditer with plain character classes is ~2x faster than a split on look-behinds.
_SENTENCE_END = re.compile(r"[.!?…।॥։;](\s+)(?=\S)|[。！？](?![」』）”’\"'])(\s*)")


def split_sentences(line: str) -> list[str]:
    """A line cut after sentence-final punctuation (rough, language-agnostic; empty parts dropped).

    >>> split_sentences("It rained. We stayed in! 雨だ。帰る。")
    ['It rained.', 'We stayed in!', '雨だ。', '帰る。']
    """
    out, start = [], 0
    for m in _SENTENCE_END.finditer(line):
        end = m.start(1) if m.start(1) >= 0 else m.start(2)
        part = line[start:end].strip()
        if part:
            out.append(part)
        start = m.end()
    part = line[start:].strip()
    if part:
        out.append(part)
    return out
