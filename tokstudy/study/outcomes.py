"""What each stage of the study hands the next: one frozen dataclass per stage, with its JSON codec.

A stage's body (:mod:`tokstudy.study.stage_bodies`) returns one of these; the stage runner
(:mod:`tokstudy.study.stages`) writes its ``to_json()`` into the stage's done-record and, when the stage is
reused, reads it back with ``from_json``. Nothing else reads a done-record, so the JSON shape of a stage's
outputs is decided here, once. Paths are kept relative to the results folder, as the records hold them, so a
results folder can be moved; :meth:`TokenizersBuilt.dirs` and :meth:`ModelBuilt.path` resolve them.

>>> built = TokenizersBuilt((BuiltTokenizer("sp-unigram-2k", 2000, "tokenizers/sp-unigram-2k", 100),))
>>> TokenizersBuilt.from_json(built.to_json()) == built
True
>>> built.dirs(Path("/r"))
{'sp-unigram-2k': PosixPath('/r/tokenizers/sp-unigram-2k')}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

#: the stages other stages read by name (``inputs[TOKENIZERS]``)
TASK_TEXT, TOKENIZERS, ANALYSIS = "task_text", "tokenizers", "analysis"

#: the fields of the analysis stage's record that an older record lacks, and what they read as there (its
#: tokenizers, missing too, are the names of its ``vocab_sizes``: :meth:`AnalysisWritten.from_json`)
_ADDED_LATER = {"skipped_datasets": (), "tables": (), "figures": ()}


@dataclass(frozen=True)
class TaskTextWritten:
    """The ``task_text`` stage: the tasks' training words as raw text, one record per file
    (:func:`~tokstudy.study.tasks.write_task_text`: ``dataset``, ``language``, ``path`` relative to the stage's
    folder, ``sentences``, ``words``; the rows of the report's ``task_text`` table as they are)."""

    files: tuple[dict, ...] = ()

    def paths(self, root: Path) -> tuple[Path, ...]:
        """The files themselves, under the results folder ``root``."""
        return tuple(root / "task_text" / f["path"] for f in self.files)

    def to_json(self) -> dict:
        return {"files": list(self.files)}

    @classmethod
    def from_json(cls, data: dict) -> TaskTextWritten:
        return cls(tuple(data["files"]))


@dataclass(frozen=True)
class BuiltTokenizer:
    """One trained vocabulary."""

    name: str
    """Its name in the study (:func:`~tokstudy.study.stage_bodies.tokenizer_name`)."""
    vocab_size: int
    path: str
    """Its folder, relative to the results folder."""
    n_sentences: int
    """Sentences it was trained on."""


@dataclass(frozen=True)
class TokenizersBuilt:
    """The ``tokenizers`` stage: every vocabulary of the section, smallest first as the section lists them."""

    tokenizers: tuple[BuiltTokenizer, ...]

    def dirs(self, root: Path) -> dict[str, Path]:
        """Each tokenizer's folder under the results folder ``root``, by name."""
        return {t.name: root / t.path for t in self.tokenizers}

    def to_json(self) -> dict:
        return {"tokenizers": [dataclasses.asdict(t) for t in self.tokenizers]}

    @classmethod
    def from_json(cls, data: dict) -> TokenizersBuilt:
        return cls(tuple(BuiltTokenizer(**t) for t in data["tokenizers"]))


@dataclass(frozen=True)
class ModelBuilt:
    """A ``pretrain/<tokenizer>`` or ``control/<tokenizer>`` stage: the model folder and, for a pre-trained one,
    what its pre-training cost (a control's random weights cost nothing worth counting: None)."""

    model: str
    """The exported Hugging Face model folder, relative to the results folder."""
    cost: dict | None = None
    """``pretrain.cost.Cost.to_dict``'s fields and ``stage_seconds`` (the whole stage, data preparation
    included)."""

    def path(self, root: Path) -> Path:
        return root / self.model

    def to_json(self) -> dict:
        return {"model": self.model} if self.cost is None else {"model": self.model, "cost": self.cost}

    @classmethod
    def from_json(cls, data: dict) -> ModelBuilt:
        return cls(data["model"], data.get("cost"))


@dataclass(frozen=True)
class FinetuneOutcome:
    """A ``finetune/...`` stage: one (model, task, seed) run's score, predictions, cost and data read."""

    metric: str
    """``"F1"`` or ``"accuracy"``."""
    score: float
    """The test score in percent."""
    predictions: str | None = None
    """Per-word test predictions, relative to the results folder (NER only)."""
    cost: dict | None = None
    """What the run cost, as the backend measured it."""
    dev_score: float | None = None
    epochs_run: int | None = None
    data: dict | None = None
    """What was read of each split, by role (:class:`~tokstudy.study.tasks.SplitRecord` as JSON)."""

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> FinetuneOutcome:
        # records written before dev_score, epochs_run and data were kept lack them: None, as for a run that did
        # not record them
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


@dataclass(frozen=True)
class AnalysisWritten:
    """The ``analysis`` stage: what it read and the files it wrote (relative to the results folder)."""

    skipped_datasets: tuple[str, ...]
    """Analysis datasets named in the configuration but not available."""
    tokenizers: tuple[str, ...]
    vocab_sizes: dict[str, int]
    """Each tokenizer's vocabulary size, by name."""
    table4_dataset: str
    """The dataset of Table 4 (the first analysis dataset, its language expanded)."""
    tables: tuple[str, ...]
    figures: tuple[str, ...]

    def to_json(self) -> dict:
        """The record as the stage runner keeps it (``.stages/analysis.json``'s outputs)."""
        return {
            "skipped_datasets": list(self.skipped_datasets),
            "tokenizers": list(self.tokenizers),
            "vocab_sizes": dict(self.vocab_sizes),
            "table4_dataset": self.table4_dataset,
            "tables": list(self.tables),
            "figures": list(self.figures),
        }

    @classmethod
    def from_json(cls, data: dict) -> AnalysisWritten:
        """The outcome of its record. A record written before a field existed lacks it: the lists read as empty
        and the tokenizers as the names of ``vocab_sizes``, in its order (the order they were trained in).

        >>> AnalysisWritten.from_json({"vocab_sizes": {"a": 8000, "b": 16000}, "table4_dataset": "d"}).tokenizers
        ('a', 'b')
        """
        record = {**_ADDED_LATER, "tokenizers": list(data["vocab_sizes"]), **data}
        return cls(**{f.name: _decoded(record[f.name]) for f in dataclasses.fields(cls)})


def _decoded(value):
    """A record's value as its field holds it: a JSON list as a tuple, a JSON object as a dict of its own."""
    return tuple(value) if isinstance(value, (list, tuple)) else dict(value) if isinstance(value, dict) else value


@dataclass(frozen=True)
class ReportWritten:
    """The ``report`` stage: report.md and report.html, relative to the results folder."""

    markdown: str
    html: str

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ReportWritten:
        return cls(data["markdown"], data["html"])
