"""The three splits of a fine-tuning task and its label set, with the checks that protect the scores.

* The label set is taken from the **train** split (``O`` first for tags). A dev/test
  label that train never shows cannot be predicted; by default that is an error listing
  the labels and where they occur (``unseen_labels="keep"`` keeps them as gold, so they
  count as misses; ``"map_o"`` turns such gold tags into ``O``).
* An empty split, a split without tags (token task) or without sentence labels
  (classification) is an error naming the dataset, split and source file.
* Corpora without a labelled test split (SST-2) are evaluated on ``dev``, and a seeded
  fraction of train becomes the dev split for early stopping, so the reported split is
  never used for model selection.

The task is a :class:`~tokstudy.data.registry.DatasetTask` (``NER`` or ``CLASSIFICATION``); being a ``str`` enum it
equals its spelling, so a caller holding ``"ner"`` from a file gets the same result.

>>> from tokstudy.data.types import Dataset, Sentence
>>> tr = Dataset((Sentence(("a", "b"), ("B-X", "O")),), name="toy", split="train")
>>> te = Dataset((Sentence(("c",), ("B-Y",)),), name="toy", split="test")
>>> prepare_task(tr, tr, te, task="ner")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: toy test: 1 label(s) never seen in train: B-Y (1x, first in sentence 0); the model cannot predict ...
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace

from tokstudy.data.registry import DatasetTask, dataset_info, load_dataset
from tokstudy.data.types import Dataset, Sentence


@dataclass(frozen=True)
class TaskData:
    """Train/dev/test splits ready for fine-tuning, and the label set (index = label id)."""

    train: Dataset
    """Sentences to fine-tune on."""
    dev: Dataset
    """Sentences early stopping chooses the epoch on."""
    test: Dataset
    """Sentences the reported score comes from."""
    labels: tuple[str, ...]
    """The label set; a label's index is its id."""
    notes: tuple[str, ...] = ()
    """What preparing the splits changed (labels mapped or dropped, sentences held out), for the log."""


def _where(ds: Dataset) -> str:
    return f"{ds.name} {ds.split}" + (f" ({ds.source})" if ds.source else "")


def check_split(ds: Dataset, task: DatasetTask) -> None:
    """Non-empty, and labelled as the task needs."""
    if len(ds) == 0:
        raise ValueError(f"{_where(ds)}: the split is empty; expected at least one sentence")
    for s in ds:
        if task == DatasetTask.NER and s.tags is None:
            raise ValueError(
                f"{_where(ds)}: sentence {s.sent_id} (line {s.line}) has no tags; a token task needs IOB2 tags"
            )
        if task == DatasetTask.CLASSIFICATION and s.label is None:
            raise ValueError(f"{_where(ds)}: sentence {s.sent_id} (line {s.line}) has no sentence label")


def label_set(ds: Dataset, task: DatasetTask) -> tuple[str, ...]:
    """Labels seen in ``ds``: tags with ``O`` first then by type, or sorted sentence labels."""
    if task == DatasetTask.NER:
        return tuple(ds.label_set())
    return tuple(sorted({s.label for s in ds}))


def apply_unseen_policy(
    ds: Dataset, labels: tuple[str, ...], task: DatasetTask, policy: str
) -> tuple[Dataset, str | None]:
    """Check ``ds`` against ``labels``; returns the (possibly mapped) split and a note, or raises."""
    known = set(labels)
    counts: Counter = Counter()
    first: dict[str, int] = {}
    for s in ds:
        for lab in (s.tags or ()) if task == DatasetTask.NER else (s.label,):
            if lab not in known:
                counts[lab] += 1
                first.setdefault(lab, s.sent_id)
    if not counts:
        return ds, None
    listed = ", ".join(f"{lab} ({n}x, first in sentence {first[lab]})" for lab, n in sorted(counts.items()))
    if policy == "error":
        raise ValueError(
            f"{_where(ds)}: {len(counts)} label(s) never seen in train: {listed}; the model cannot predict them. "
            "Use unseen_labels='keep' (count them as misses) or 'map_o' (gold -> O)"
        )
    note = f"{ds.name} {ds.split}: {sum(counts.values())} gold label(s) unseen in train ({listed})"
    if policy == "keep":
        return ds, note + " kept as gold: they count as misses"
    fixed = tuple(replace(s, tags=tuple("O" if t not in known else t for t in s.tags)) if s.tags else s for s in ds)
    return ds.with_meta(sentences=_repair_iob2(fixed)), note + " mapped to O"


def _repair_iob2(sentences: tuple[Sentence, ...]) -> tuple[Sentence, ...]:
    # mapping a B- to O can leave an I- after O; make it B- so the gold stays valid IOB2
    out = []
    for s in sentences:
        tags = list(s.tags or ())
        for i, t in enumerate(tags):
            if t.startswith("I-") and (i == 0 or tags[i - 1] == "O" or tags[i - 1][2:] != t[2:]):
                tags[i] = "B-" + t[2:]
        out.append(replace(s, tags=tuple(tags)) if s.tags else s)
    return tuple(out)


def holdout(train: Dataset, fraction: float, seed: int) -> tuple[Dataset, Dataset]:
    """Split ``train`` into (rest, held-out dev) with a seeded shuffle of sentence indices."""
    idx = list(range(len(train)))
    random.Random(seed).shuffle(idx)
    n_dev = max(1, round(fraction * len(idx)))
    if n_dev >= len(idx):
        raise ValueError(f"{_where(train)}: {len(idx)} sentence(s) are too few to hold out a dev split")
    dev_idx = set(idx[:n_dev])
    rest = tuple(s for i, s in enumerate(train) if i not in dev_idx)
    dev = tuple(s for i, s in enumerate(train) if i in dev_idx)
    return train.with_meta(sentences=rest), train.with_meta(sentences=dev, split="dev-holdout")


def prepare_task(
    train: Dataset, dev: Dataset, test: Dataset, *, task: DatasetTask, unseen_labels: str = "error"
) -> TaskData:
    """Check the splits, derive the label set from train and apply the unseen-label policy to dev and test."""
    for ds in (train, dev, test):
        check_split(ds, task)
    labels = label_set(train, task)
    notes = []
    dev, note_dev = apply_unseen_policy(dev, labels, task, unseen_labels)
    test, note_test = apply_unseen_policy(test, labels, task, unseen_labels)
    notes += [n for n in (note_dev, note_test) if n]
    return TaskData(train, dev, test, labels, tuple(notes))


def _head(ds: Dataset, n: int | None) -> Dataset:
    return ds if n is None or n >= len(ds) else ds.with_meta(sentences=ds.sentences[:n])


def load_task(config) -> TaskData:
    """Read the splits named by a :class:`~pretrain.finetune.config.FinetuneConfig` from the registry."""
    info = dataset_info(config.dataset)
    load = lambda split: load_dataset(config.dataset, split, language=config.language, data_dir=config.data_dir)  # noqa: E731
    has_test = "test" in info.splits
    test_split = config.test_split or ("test" if has_test else "dev")
    train = load(config.train_split)
    if config.dev_split is None and not has_test:
        train, dev = holdout(train, config.holdout_fraction, config.holdout_seed)
        note = (
            f"{config.dataset} has no labelled test split: reporting on {test_split}; dev = "
            f"{len(dev)} train sentences held out (fraction {config.holdout_fraction}, seed {config.holdout_seed})"
        )
    else:
        dev, note = load(config.dev_split or "dev"), None
    test = load(test_split)
    train = _head(train, config.max_train_sentences)
    dev, test = _head(dev, config.max_eval_sentences), _head(test, config.max_eval_sentences)
    data = prepare_task(train, dev, test, task=config.task, unseen_labels=config.unseen_labels)
    return replace(data, notes=((note,) if note else ()) + data.notes)
