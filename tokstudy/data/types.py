"""The common representation every reader returns: sentences of words with labels.

A :class:`Sentence` is one labelled word sequence (IOB2 tags, or ``None`` for
unlabelled text) plus where it came from. A :class:`Dataset` is an ordered list
of sentences with dataset-level metadata. Everything downstream (segmentation
tables, fine-tuning, the app) consumes these two types only.

>>> s = Sentence(words=("EU", "rejects"), tags=("B-ORG", "O"), doc_id=0, sent_id=0)
>>> s.entities()
[(0, 1, 'ORG')]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Sequence

from tokstudy.data.repairs import RepairLog


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence (or utterance) of pre-split words.

    Attributes:
        words: the words, as split by the corpus.
        tags: one IOB2 tag per word, or ``None`` for unlabelled text.
        doc_id: index of the document the sentence belongs to (``-DOCSTART-`` or
            blank-line boundaries); 0 when the corpus has no documents.
        sent_id: index of the sentence inside its dataset split (0-based).
        label: sentence-level label (intent, sentiment), or ``None``.
        line: 1-based line of the sentence's first word in its source file,
            so later errors can point back to the file.
    """

    words: tuple[str, ...]
    tags: tuple[str, ...] | None = None
    doc_id: int = 0
    sent_id: int = 0
    label: str | None = None
    line: int | None = None

    def __post_init__(self) -> None:
        if self.tags is not None and len(self.tags) != len(self.words):
            raise ValueError(f"sentence {self.sent_id}: {len(self.words)} words but {len(self.tags)} tags")

    def __len__(self) -> int:
        return len(self.words)

    def entities(self) -> list[tuple[int, int, str]]:
        """Entity spans ``(start, end_exclusive, type)`` read from the IOB2 tags."""
        return iob2_spans(self.tags or ())


@dataclass(frozen=True, slots=True)
class Dataset:
    """An ordered collection of sentences from one dataset split.

    Attributes:
        sentences: the sentences, in file order.
        name: dataset name, e.g. ``"conll2003"``.
        language: ISO 639-1 code, e.g. ``"en"``.
        split: ``"train"``, ``"dev"``, ``"test"`` or any other name.
        source: file or directory the data was read from.
        repaired: number of tags a lenient reader repaired (0 in strict mode).
        repair_log: what it repaired: counts by kind and the first places (``file:line``).
    """

    sentences: tuple[Sentence, ...]
    name: str = "unnamed"
    language: str = "und"
    split: str = "all"
    source: str | None = None
    repaired: int = 0
    metadata: dict = field(default_factory=dict, compare=False)
    repair_log: RepairLog = field(default_factory=RepairLog, compare=False)

    def __len__(self) -> int:
        return len(self.sentences)

    def __iter__(self) -> Iterator[Sentence]:
        return iter(self.sentences)

    def __getitem__(self, i: int) -> Sentence:
        return self.sentences[i]

    @property
    def n_words(self) -> int:
        return sum(len(s.words) for s in self.sentences)

    @property
    def n_entities(self) -> int:
        return sum(len(s.entities()) for s in self.sentences)

    @property
    def n_documents(self) -> int:
        return len({s.doc_id for s in self.sentences})

    def with_meta(self, **changes) -> "Dataset":
        """A copy with some metadata fields changed (name, language, split, ...)."""
        return replace(self, **changes)

    def label_set(self) -> list[str]:
        """Sorted set of word-level tags (``O`` first)."""
        tags = {t for s in self.sentences for t in (s.tags or ())}
        return sorted(tags, key=lambda t: (t != "O", t[2:], t))


def iob2_spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Entity spans of a valid IOB2 sequence: ``(start, end_exclusive, type)``.

    An ``I-`` tag that does not continue an entity of its type starts a new one
    (the conlleval convention), so this never drops a word.

    >>> iob2_spans(["B-PER", "I-PER", "O", "I-LOC"])
    [(0, 2, 'PER'), (3, 4, 'LOC')]
    """
    spans: list[tuple[int, int, str]] = []
    start, etype = -1, ""
    for i, tag in enumerate(tags):
        prefix, _, typ = tag.partition("-")
        continues = prefix == "I" and start >= 0 and typ == etype
        if continues:
            continue
        if start >= 0:
            spans.append((start, i, etype))
            start, etype = -1, ""
        if prefix in ("B", "I"):
            start, etype = i, typ
    if start >= 0:
        spans.append((start, len(tags), etype))
    return spans
