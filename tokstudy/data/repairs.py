"""What a lenient reader repaired: each repaired tag or skipped line with its place, and their tally by kind.

Lenient reading (``--lenient``, and the registry's CoNLL-2002 Spanish and MasakhaNER 2.0 by default) changes
tags, so it must say which: a wrong ``--scheme`` can rewrite hundreds of tags. :func:`~tokstudy.data.schemes.to_iob2`
appends one :class:`Repair` per repaired tag to the list it is given; a reader turns the list into a
:class:`RepairLog` (counts by kind, the first few places) kept on the dataset
(:attr:`~tokstudy.data.types.Dataset.repair_log`), which the commands print and write to ``--json``.
A line a lenient CoNLL reader read another way than as written is one record too: :data:`FUSED` for a word
fused with its next column that it split (CoNLL-2002 Dutch's ``Itali\x81EN B-LOC`` among ``word POS TAG`` lines,
read as ``Itali\x81E N B-LOC``: the line keeps its word and its tag); a line it skipped is :data:`SKIPPED` for a
single field (a word without its tag, or a tag without its word), :data:`RAGGED` for any other field count than
the file's that it could not read (a word holding a space, a fused word whose split is not clear). A skipped line
drops a word, a split one changes it, so both are said beside the repaired tags, never silently.

>>> log = RepairLog.of([Repair(START, "a.conll", 3, "I-LOC", "B-LOC", "'O'")])
>>> print(log.describe())
1 tag repaired in a.conll (lenient reading):
  1 x a continuing tag with no entity to continue, read as the start of one
  a.conll:3: 'I-LOC' after 'O' read as 'B-LOC'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

#: kinds of repair, with what each means
START, IOB1_B, UNCLOSED, FUSED, SKIPPED, RAGGED = "start", "iob1-b", "unclosed", "fused", "skipped", "ragged"
KINDS = {
    START: "a continuing tag with no entity to continue, read as the start of one",
    IOB1_B: "an IOB1 B- tag that does not separate two entities of its type, read as the start of one",
    UNCLOSED: "an entity left open (IOBES/BILOU), closed at its last word",
    FUSED: "a word fused with its next column (one field fewer than the file's lines), split where a value that "
    "column has on the file's other lines ends it, the line's tag kept",
    SKIPPED: "a line with a single field (a word without its tag, or a tag without its word), skipped",
    RAGGED: "a line with more or fewer fields than the file's lines have (a word holding a space, or a word fused "
    "with the next column where no single split is clear), skipped",
}
#: the kinds that drop a line (and its word) rather than change a tag
DROPPED = (SKIPPED, RAGGED)
#: the kinds that keep a line but read its fields otherwise than as written
SPLIT = (FUSED,)
#: how many repairs a log keeps with their place
FIRST = 10


@dataclass(frozen=True)
class Repair:
    """One repaired tag."""

    kind: str
    """One of :data:`KINDS`."""
    path: str | None
    """The file it is in (as the reader was given it), if known."""
    line: int | None
    """1-based line of the tag (of the sentence, for one-sentence-a-line formats), if known."""
    tag: str
    """The tag as written (for a line skipped or split, :data:`DROPPED` and :data:`SPLIT`, the line's text)."""
    became: str
    """The IOB2 tag it was read as (for a split line, its fields as read; empty for a skipped line)."""
    after: str = ""
    """What came before it (``'O'``, ``the sentence start``), for the message."""

    def where(self, show: Callable[[str], str] = str) -> str:
        """``file:line`` (``show`` turns the file into what a report may print)."""
        place = show(self.path) if self.path else "?"
        return f"{place}:{self.line}" if self.line is not None else place

    def describe(self, show: Callable[[str], str] = str) -> str:
        if self.kind == SKIPPED:
            return f"{self.where(show)}: line {self.tag!r} skipped"
        if self.kind == RAGGED:
            n = len(self.tag.split())
            return f"{self.where(show)}: line {self.tag!r} skipped ({n} field{'' if n == 1 else 's'})"
        if self.kind in SPLIT:
            return f"{self.where(show)}: line {self.tag!r} read as {self.became!r}"
        after = f" after {self.after}" if self.after else ""
        return f"{self.where(show)}: {self.tag!r}{after} read as {self.became!r}"


@dataclass(frozen=True)
class RepairLog:
    """Every repair of one dataset: counts by kind, and the first :data:`FIRST` with their place."""

    counts: dict[str, int] = field(default_factory=dict)
    first: tuple[Repair, ...] = ()
    source: str | None = None

    @classmethod
    def of(cls, repairs: Iterable[Repair], *, source: str | None = None, keep: int = FIRST) -> "RepairLog":
        """The log of ``repairs``, the first ``keep`` kept with their place (in line order when all have one)."""
        repairs = list(repairs)
        if all(r.line is not None for r in repairs):
            repairs.sort(key=lambda r: r.line)
        counts = Counter(r.kind for r in repairs)
        if source is None and repairs:
            source = repairs[0].path
        return cls({k: counts[k] for k in KINDS if counts[k]}, tuple(repairs[:keep]), source)

    @property
    def total(self) -> int:
        """Repaired tags, split lines and skipped lines together."""
        return sum(self.counts.values())

    @property
    def skipped(self) -> int:
        """Lines skipped (:data:`DROPPED`: a single field, or another field count)."""
        return sum(self.counts.get(k, 0) for k in DROPPED)

    @property
    def split(self) -> int:
        """Lines kept with their fields read otherwise than as written (:data:`SPLIT`: a fused word split)."""
        return sum(self.counts.get(k, 0) for k in SPLIT)

    @property
    def tags(self) -> int:
        """Tags repaired: ``total`` less the lines skipped or split."""
        return self.total - self.skipped - self.split

    def __bool__(self) -> bool:
        return self.total > 0

    def describe(self, show: Callable[[str], str] = str) -> str:
        """The lines a command prints: how many, of which kind, and where the first ones are."""
        where = f" in {show(self.source)}" if self.source else ""
        lines = [f"{self.headline()}{where} (lenient reading):"]
        lines += [f"  {n} x {KINDS[k]}" for k, n in self.counts.items()]
        lines += [f"  {r.describe(show)}" for r in self.first]
        if self.total > len(self.first):
            lines.append(f"  ... and {self.total - len(self.first)} more")
        return "\n".join(lines)

    def headline(self) -> str:
        """``3 tags repaired``, ``112 fused lines split``, ``2 lines skipped``, those there are, listed.

        >>> RepairLog({START: 3, SKIPPED: 1}).headline(), RepairLog({START: 2, FUSED: 5, RAGGED: 1}).headline()
        ('3 tags repaired and 1 line skipped', '2 tags repaired, 5 fused lines split and 1 line skipped')
        """
        tags, split, lines = self.tags, self.split, self.skipped
        parts = [f"{tags} tag{'' if tags == 1 else 's'} repaired"] if tags or not (lines or split) else []
        parts += [f"{split} fused line{'' if split == 1 else 's'} split"] if split else []
        parts += [f"{lines} line{'' if lines == 1 else 's'} skipped"] if lines else []
        return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]

    def to_dict(self, show: Callable[[str], str] = str) -> dict:
        """``{"source", "total", "by_kind", "first": [{"where", "tag", "became", "kind"}]}`` for ``--json``."""
        return {
            "source": show(self.source) if self.source else None,
            "total": self.total,
            "by_kind": dict(self.counts),
            "first": [
                {"where": r.where(show), "kind": r.kind, "tag": r.tag, "became": r.became, "after": r.after}
                for r in self.first
            ],
        }
