"""Every attempt at a stage, recorded in the stage's folder as it runs: what a retried run cost in all.

A stage is attempted again when the one before did not finish: its Dask worker was killed (SIGKILL, out of
memory, the end of a batch allocation) and the scheduler started it on another worker, it raised and was
retried, or the whole study was stopped and run again. Each attempt resumes from the last checkpoint, so only
its own time is what a trainer measures; one that was killed could not say what it had cost. So each attempt
keeps a small record in ``<stage folder>/.attempts/``, written when it starts, rewritten as it runs and when it
ends: a killed attempt leaves the record of its last rewrite.

The rewrite follows the attempt's length: every tenth of the time it has run, at least every 30 s and at most
every 0.5 s. A lost attempt's ``seconds`` are therefore short of the truth by less than a tenth of them (at most
30 s, or 0.5 s for one under 5 s), and a long run costs a few hundred small writes.

>>> import tempfile
>>> work = Path(tempfile.mkdtemp())
>>> with recorded(work, "here"):
...     pass
>>> [(a.where, a.end) for a in read_attempts(work)]
[('here', <AttemptEnd.RETURNED: 'returned'>)]
"""

from __future__ import annotations

import enum
import json
import os
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tokstudy.fileio import atomic_write_text

#: the folder of attempt records inside a stage's folder
ATTEMPTS_DIR = ".attempts"
#: bounds of the interval between two rewrites of a running attempt's record, in seconds
MIN_INTERVAL, MAX_INTERVAL = 0.5, 30.0


class AttemptEnd(enum.Enum):
    """How an attempt ended."""

    RETURNED = "returned"
    """It returned the stage's outputs."""
    RAISED = "raised"
    """It raised (and was retried, or the study stopped): it ended in its own hands."""
    LOST = "lost"
    """Its record was never closed: it was killed, or still runs elsewhere. Its ``seconds`` run to its last
    rewrite."""


@dataclass(frozen=True)
class Attempt:
    """One attempt at a stage."""

    where: str
    """The process and machine it ran in (a Dask worker's address)."""
    started: float
    """When it started (seconds since the epoch)."""
    seconds: float
    """How long it ran: to its end, or, for a lost attempt, to the last rewrite of its record."""
    end: AttemptEnd

    def to_dict(self) -> dict:
        return _record(self.where, self.started, self.seconds, self.end)

    @classmethod
    def from_dict(cls, data: dict) -> Attempt:
        end = data.get("end")
        return cls(
            where=str(data.get("where", "")),
            started=float(data["started"]),
            seconds=float(data["seconds"]),
            end=AttemptEnd.LOST if end is None else AttemptEnd(end),
        )


def interval(elapsed: float) -> float:
    """Seconds until the next rewrite of a record whose attempt has run ``elapsed`` seconds.

    >>> interval(1.0), interval(120.0), interval(7200.0)
    (0.5, 12.0, 30.0)
    """
    return min(MAX_INTERVAL, max(MIN_INTERVAL, elapsed / 10))


@contextmanager
def recorded(work: Path, where: str) -> Iterator[None]:
    """Record the attempt that the block is, in ``work``: at its start, as it runs, at its end.

    Writing the record never fails the stage: a record that could not be written is only missing from the
    stage's cost."""
    path = Path(work) / ATTEMPTS_DIR / f"{time.time_ns()}-{uuid.uuid4().hex[:8]}.json"
    started, clock = time.time(), time.monotonic()
    _write(path, where, started, 0.0, None)
    stop = threading.Event()

    def rewrite() -> None:
        while not stop.wait(interval(time.monotonic() - clock)):
            _write(path, where, started, time.monotonic() - clock, None)

    writer = threading.Thread(target=rewrite, name="stage-attempt-record", daemon=True)
    writer.start()
    end = AttemptEnd.RAISED
    try:
        yield
        end = AttemptEnd.RETURNED
    finally:
        stop.set()
        writer.join()
        _write(path, where, started, time.monotonic() - clock, end)


def _record(where: str, started: float, seconds: float, end: AttemptEnd | None) -> dict:
    """An attempt's record as JSON, in the attempt's folder and in the stage's done-record: ``end`` is null while
    the attempt runs (read back as :attr:`AttemptEnd.LOST`)."""
    return {"where": where, "started": started, "seconds": seconds, "end": end and end.value}


def _write(path: Path, where: str, started: float, seconds: float, end: AttemptEnd | None) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(_record(where, started, round(seconds, 3), end)))
    except OSError:
        pass  # see recorded(): the stage goes on without this record


def read_attempts(work: Path) -> tuple[Attempt, ...]:
    """The attempts recorded in ``work``, in the order they started; a record that cannot be read is skipped
    (a stage's folder is the study's own, but a torn or foreign file must not stop the study)."""
    folder = Path(work) / ATTEMPTS_DIR
    if not folder.is_dir():
        return ()
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            found.append(Attempt.from_dict(json.loads((folder / name).read_text())))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return tuple(sorted(found, key=lambda a: a.started))
