"""The repairs table: what lenient reading repaired in each dataset, typed, with the JSON of ``repairs.json``.

One :class:`DatasetRepairs` per dataset (its :class:`~tokstudy.data.repairs.RepairLog` with the files named as
they may be shown), gathered in a :class:`RepairsTable` that gives the table's Markdown, its CSV rows (one per
place kept) and its JSON: the list ``stats --json`` holds under ``"repairs"``, ``tokstudy report`` writes as
``repairs.json`` and ``correlate``/``examples`` beside their ``--json``. Kept apart from
:mod:`tokstudy.report.build` (which makes the report's table of it) because every command that reads datasets
writes this JSON, and this module imports nothing beyond the repair log and the JSON helpers.

>>> from tokstudy.data.repairs import START, Repair
>>> table = RepairsTable.of({"mine": RepairLog.of([Repair(START, "a.conll", 3, "I-X", "B-X", "'O'")])})
>>> table.entries[0].first[0].where, table.entries[0].headline(), RepairsTable.from_json(table.to_json()) == table
('a.conll:3', '1 tag repaired', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tokstudy.data.repairs import KINDS, RepairLog
from tokstudy.report.codec import from_jsonable
from tokstudy.report.tables import markdown_table, to_jsonable


@dataclass(frozen=True)
class RepairPlace:
    """One repair a log kept with its place (:attr:`~tokstudy.data.repairs.RepairLog.first`), as ``repairs.json``
    and the CSV hold it: the file as it may be shown, the line, and the tag as written and as read."""

    where: str
    """``file:line``."""
    kind: str
    """One of :data:`~tokstudy.data.repairs.KINDS`."""
    tag: str
    became: str
    after: str = ""


@dataclass(frozen=True)
class DatasetRepairs:
    """One dataset's entry of the ``repairs`` table: :meth:`~tokstudy.data.repairs.RepairLog.to_dict` with its
    ``dataset``, typed."""

    dataset: str
    source: str | None
    """The file, as it may be shown (None when unknown)."""
    total: int
    by_kind: dict[str, int]
    """How many of each kind, in the order of :data:`~tokstudy.data.repairs.KINDS`."""
    first: tuple[RepairPlace, ...]
    """The first places kept (:data:`~tokstudy.data.repairs.FIRST`)."""

    @classmethod
    def of(cls, dataset: str, log: RepairLog) -> DatasetRepairs:
        """The entry of ``log`` (its files named as the log holds them)."""
        return cls.from_json({"dataset": dataset, **log.to_dict()})

    @classmethod
    def from_json(cls, data: dict) -> DatasetRepairs:
        return from_jsonable(cls, data)

    def to_json(self) -> dict:
        return to_jsonable(self)

    def headline(self) -> str:
        """Tags repaired, fused lines split, lines skipped (:meth:`~tokstudy.data.repairs.RepairLog.headline`)."""
        return RepairLog(self.by_kind).headline()


@dataclass(frozen=True)
class RepairsTable:
    """Every dataset lenient reading repaired, in the order read; empty when it repaired nothing."""

    entries: tuple[DatasetRepairs, ...] = ()

    @classmethod
    def of(cls, logs: Mapping[str, RepairLog]) -> RepairsTable:
        """The table of ``{dataset name: its repair log}`` (:func:`tokstudy.inputs.load.repair_logs`)."""
        return cls(tuple(DatasetRepairs.of(name, log) for name, log in logs.items()))

    def to_json(self) -> list[dict]:
        return [e.to_json() for e in self.entries]

    @classmethod
    def from_json(cls, data: list[dict]) -> RepairsTable:
        return cls(tuple(DatasetRepairs.from_json(e) for e in data))

    def rows(self) -> list[dict]:
        """The CSV: one row per place kept, with its dataset."""
        return [{"dataset": e.dataset, **to_jsonable(p)} for e in self.entries for p in e.first]

    def markdown(self) -> str:
        """Per dataset: what was repaired, how many of each kind, and the places kept."""
        parts = []
        for e in self.entries:
            source = f" in `{e.source}`" if e.source else ""
            parts.append(f"**{e.dataset}**: {e.headline()}{source} (lenient reading).")
            parts.append("\n".join(f"- {n} x {KINDS[k]}" for k, n in e.by_kind.items()))
            shown = [{"where": p.where, "tag": p.tag, "after": p.after, "read as": p.became} for p in e.first]
            more = e.total - len(e.first)
            parts.append(markdown_table(shown) + (f"\n\n... and {more} more" if more > 0 else ""))
        return "\n\n".join(parts)
