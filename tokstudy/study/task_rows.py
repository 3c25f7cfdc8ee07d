"""What the study read of its tasks, typed for the report: the rows of ``task_data`` (each task's splits) and
``task_text`` (the tasks' training text added to the corpora), each with its JSON codec.

The analysis stage writes both tables; the report's data and languages sections read them back
(:func:`~tokstudy.report.result.StudyTables.value`, then ``from_json``).

>>> t = TaskData.from_json({"task": "t", "train": {"split": "train", "sentences": 5, "available": 9}})
>>> t.corpus, t.train.available, t.test is None
('t', 9, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from tokstudy.report.codec import from_jsonable
from tokstudy.report.tables import to_jsonable
from tokstudy.study.tasks import SplitRecord

_SPLITS = ("train", "test", "dev")


@dataclass(frozen=True)
class TaskData:
    """What the study read of one task's splits (a row of ``task_data``).

    Attributes:
        task: the task's label.
        dataset, language: its corpus and language (None where the row does not name them).
        train, test, dev: each split read (None where the task has none).
    """

    task: str
    dataset: str | None = None
    language: str | None = None
    train: SplitRecord | None = None
    test: SplitRecord | None = None
    dev: SplitRecord | None = None

    @property
    def corpus(self) -> str:
        """The corpus the task belongs to: its dataset, else its label."""
        return self.dataset or self.task

    def splits(self) -> list[SplitRecord]:
        """The splits read, training first."""
        return [s for s in (self.train, self.dev, self.test) if s is not None]

    @classmethod
    def from_json(cls, data: dict) -> TaskData:
        return from_jsonable(cls, data)

    def to_json(self) -> dict:
        """The row as the analysis stage writes it: a split the task does not have is left out."""
        return {k: v for k, v in to_jsonable(self).items() if not (v is None and k in _SPLITS)}


@dataclass(frozen=True)
class TaskText:
    """One corpus and language's training text added to the corpora (a row of ``task_text``).

    Attributes:
        dataset, language: whose training split it is.
        path: the text file, relative to the stage's folder.
        sentences, words: how much text it holds.
    """

    dataset: str
    language: str | None
    path: str
    sentences: int
    words: int

    @classmethod
    def from_json(cls, data: dict) -> TaskText:
        return from_jsonable(cls, data)

    def to_json(self) -> dict:
        return to_jsonable(self)
