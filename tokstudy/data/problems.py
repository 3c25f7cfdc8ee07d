"""Collect the bad lines of one file and report them together: up to 20, with the total.

A researcher fixing a file wants every bad line at once, not one per run. Readers
call :meth:`Problems.add` for each problem and :meth:`Problems.raise_if_any` at the
end; the error names the first problem as ``file:line: reason`` (so it reads like a
single error), lists the next ones below it and says how many there are in all.

>>> probs = Problems("f.conll")
>>> for line in (3, 9, 12):
...     probs.add(line, "line has 1 column; expected 2")
>>> try:
...     probs.raise_if_any()
... except DataFormatError as exc:
...     print(exc)
f.conll:3: line has 1 column; expected 2
  f.conll:9: line has 1 column; expected 2
  f.conll:12: line has 1 column; expected 2
  (3 problems in all)
"""

from __future__ import annotations

import os

from tokstudy.errors import DataFormatError

#: how many problems one error lists (the total is always given)
MAX_REPORTED = 20


class Problems:
    """The problems found in one file, in the order added (sort them with ``sort=True`` on raising)."""

    def __init__(self, path: str | os.PathLike | None, *, limit: int = MAX_REPORTED):
        self.path = path
        self.limit = limit
        self.items: list[tuple[int | None, str, type[DataFormatError]]] = []
        self.total = 0

    def add(self, line: int | None, reason: str, kind: type[DataFormatError] = DataFormatError) -> None:
        """Record one problem (only the first ``limit`` are kept; all are counted)."""
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append((line, reason, kind))

    def add_error(self, exc: DataFormatError) -> None:
        """Record a :class:`DataFormatError` raised by a helper (its line and reason)."""
        self.add(exc.line, exc.reason, type(exc))

    def count(self, n: int) -> None:
        """Count ``n`` further problems that are not listed (they lie beyond the first ``limit``)."""
        self.total += n

    def __bool__(self) -> bool:
        return self.total > 0

    def raise_if_any(self, *, sort: bool = False) -> None:
        """Raise the first problem's error class, listing up to ``limit`` problems and the total."""
        if not self.total:
            return
        items = sorted(self.items, key=lambda it: (it[0] is None, it[0] or 0)) if sort else self.items
        line, reason, kind = items[0]
        raise kind(reason, path=self.path, line=line, others=[(ln, r) for ln, r, _ in items[1:]], total=self.total)
