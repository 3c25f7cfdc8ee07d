"""A study's fine-tuning tasks as data: wildcards expanded to the languages present, and each task's splits.

* :func:`expand_tasks`: a task ``{dataset: 'masakhaner2:*'}`` becomes one task per language whose training
  split is present at the data location (:func:`tokstudy.data.names.expand_dataset_name`), in registry order;
* :func:`task_splits`: a task's train / dev / test as the study fine-tunes on them, each cut to the task's caps
  (``max_train``, ``max_eval``) and read as leniently as the task says, with what was read
  (:class:`SplitRecord`: sentences used and available, lines skipped, tags repaired) for the report. A corpus
  without a test split (MultiCoNER 2022, SST-2) is scored on its dev split, and the backend holds out part of
  the training split for early stopping (``TaskSplits.dev`` is None);
* :func:`write_task_text`: the words of each task's training split as raw text (``add_task_text``);
* :func:`with_labelling_twins`: each NER task's twin with the other labelling of pieces (``compare_labelling``).

>>> from tokstudy.study.config import FinetuneSection, TaskSpec
>>> split_names(TaskSpec("masakhaner2:yor")), split_names(TaskSpec("multiconer2022:de"))
(('dev', 'test'), (None, 'dev'))
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from tokstudy.data.hub import is_hf_spec
from tokstudy.data.names import expand_dataset_name, parse_dataset_name
from tokstudy.data.registry import DatasetTask, dataset_info
from tokstudy.data.types import Dataset
from tokstudy.fileio import atomic_write_text
from tokstudy.study.backends import TaskSplits
from tokstudy.study.config import FinetuneSection, TaskSpec
from tokstudy.study.sources import Sources


def expand_tasks(tasks: Iterable[TaskSpec], *, data_dir: str | os.PathLike | None) -> tuple[TaskSpec, ...]:
    """Every task with a language wildcard replaced by one task per language whose training split is present.

    The other settings of a wildcard task (caps, epochs, ``lenient``) go to each of its languages. A task that
    a wildcard and a concrete entry both give is an error naming it (its runs would share one stage).

    Example (needs the corpora at the data location)::

        >>> [t.label for t in expand_tasks([TaskSpec("multiconer2022:*")], data_dir=None)]  # doctest: +SKIP
        ['multiconer2022-de-ner', 'multiconer2022-en-ner', ..., 'multiconer2022-tr-ner']
    """
    out: list[TaskSpec] = []
    for task in tasks:
        if not task.is_wildcard:
            out.append(task)
            continue
        for concrete in expand_dataset_name(f"{task.dataset}:*:train", data_dir=data_dir):
            _, language, _ = parse_dataset_name(concrete)
            out.append(dataclasses.replace(task, language=language))
    labels = [t.label for t in out]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ValueError(f"finetune.tasks: {twice} given more than once (a wildcard covers every language present)")
    return tuple(out)


def with_labelling_twins(tasks: Iterable[TaskSpec], section: FinetuneSection) -> tuple[TaskSpec, ...]:
    """``tasks``, each NER task followed by its twin with the other labelling of pieces when
    ``section.compare_labelling`` is on (else ``tasks`` unchanged): ``label_all_pieces`` flipped from what the
    task resolves to, and the label suffixed ``-allpieces`` or ``-firstpiece``.

    >>> from tokstudy.study.config import FinetuneSection, TaskSpec
    >>> on = FinetuneSection(compare_labelling=True)
    >>> [(t.label, t.settings(on).label_all_pieces) for t in with_labelling_twins([TaskSpec("conll2003")], on)]
    [('conll2003-ner', False), ('conll2003-ner-allpieces', True)]
    """
    out: list[TaskSpec] = []
    for task in tasks:
        out.append(task)
        if section.compare_labelling and DatasetTask(task.task) is DatasetTask.NER:
            every = not task.settings(section).label_all_pieces
            out.append(
                dataclasses.replace(task, label_all_pieces=every, variant="allpieces" if every else "firstpiece")
            )
    return tuple(out)


@dataclass(frozen=True)
class SplitRecord:
    """What the study read of one split of a task, for the report."""

    split: str
    """The corpus split read (``dev`` where it serves as the test set)."""
    sentences: int
    """Sentences used (after the task's cap)."""
    available: int
    """Sentences in the split."""
    skipped_lines: int = 0
    """Malformed lines skipped by a lenient reading (``TaskSpec.lenient``)."""
    repaired: int = 0
    """Tags a lenient reading repaired (an ``I-`` that continues no entity read as ``B-``)."""


def split_names(task: TaskSpec) -> tuple[str | None, str]:
    """``(dev split, test split)`` of a task's corpus: ``(None, "dev")`` where the registry lists no test split
    (the dev split is then the test set, and the backend holds out part of train for early stopping)."""
    if is_hf_spec(task.dataset):
        return "dev", "test"
    try:
        splits = dataset_info(task.dataset).splits
    except KeyError:  # not a registry name: the sample's stand-ins and paths have all three
        return "dev", "test"
    return ("dev", "test") if "test" in splits else (None, "dev")


def read_split(task: TaskSpec, split: str, sources: Sources, *, limit: int | None) -> tuple[Dataset, SplitRecord]:
    """One split of ``task``, read as leniently as the task says and cut to its first ``limit`` sentences."""
    ds = sources.dataset(task.dataset, split, language=task.language, lenient=task.lenient)
    available = len(ds)
    if limit is not None and available > limit:
        ds = ds.with_meta(sentences=ds.sentences[:limit])
    return ds, SplitRecord(split, len(ds), available, ds.repair_log.skipped, ds.repaired)


def task_splits(task: TaskSpec, sources: Sources) -> tuple[TaskSplits, dict[str, dict]]:
    """The splits ``task`` is fine-tuned and scored on, and a :class:`SplitRecord` of each (as dicts) by role
    (``train``, ``dev`` where the corpus has one, ``test``)."""
    dev_split, test_split = split_names(task)
    train, train_read = read_split(task, "train", sources, limit=task.max_train)
    test, test_read = read_split(task, test_split, sources, limit=task.max_eval)
    dev, dev_read = (None, None) if dev_split is None else read_split(task, dev_split, sources, limit=task.max_eval)
    read = {"train": train_read, "test": test_read, "dev": dev_read}
    return TaskSplits(train, dev, test), {role: dataclasses.asdict(r) for role, r in read.items() if r is not None}


def scored_split(task: TaskSpec, sources: Sources) -> Dataset:
    """The sentences ``task``'s score and predictions come from (its test split, or dev where it has none)."""
    return read_split(task, split_names(task)[1], sources, limit=task.max_eval)[0]


def training_split(task: TaskSpec, sources: Sources) -> Dataset:
    """The training sentences ``task`` is fine-tuned on (cut to ``max_train``)."""
    return read_split(task, "train", sources, limit=task.max_train)[0]


def text_tasks(tasks: Iterable[TaskSpec]) -> list[TaskSpec]:
    """The tasks whose training text ``add_task_text`` adds: one per corpus and language (the first task's
    ``lenient`` reads it), registry corpora only (a Hugging Face dataset is not read for its text)."""
    seen: dict[tuple[str, str | None], TaskSpec] = {}
    for task in tasks:
        if not is_hf_spec(task.dataset):
            seen.setdefault((task.dataset, task.language), task)
    return list(seen.values())


def write_task_text(work: Path, tasks: Iterable[TaskSpec], sources: Sources) -> list[dict]:
    """Write the words of each task's whole training split (:func:`text_tasks`) as raw text under ``work``.

    One file per corpus and language, ``<corpus>/<language>.txt`` (the pre-trainer reads the language from the
    file name), one sentence a line, its words joined by spaces, a blank line after each: every sentence is its
    own document, as in ``raw_text`` where the source has no document structure. Never dev or test text.
    Returns one record per file: ``dataset``, ``language``, ``path`` (relative to ``work``), ``sentences``,
    ``words``.
    """
    records = []
    for task in text_tasks(tasks):
        ds = sources.dataset(task.dataset, "train", language=task.language, lenient=task.lenient)
        path = work / task.dataset / f"{ds.language}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(s.words) + "\n\n" for s in ds.sentences if s.words]
        atomic_write_text(path, "".join(lines))
        records.append(
            {
                "dataset": task.dataset,
                "language": ds.language,
                "path": str(path.relative_to(work)),
                "sentences": len(lines),
                "words": sum(len(s.words) for s in ds.sentences),
            }
        )
    return records
