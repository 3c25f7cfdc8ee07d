"""What a predictions file says it holds, and the check that it holds it.

Per-word (:mod:`.predictions`) and per-piece (:mod:`.piece_predictions`) files open with ``# key=value``
metadata lines. The fine-tuner writes ``dataset``, ``split`` and ``language`` there and, when it evaluated only
the first ``N`` sentences of the split (the study's ``max_eval``), ``subset=first:N``. Both kinds of file are
checked by the same two functions:

* :func:`check_declared_count`, on the file alone: one that declares ``subset=first:N`` holds at most ``N``
  sentences (fewer only where the split itself is shorter);
* :func:`covered_part`, against the dataset the file is used with (called by
  :func:`~tokstudy.analysis.model_errors.aligned_predictions.align_predictions` before it compares the
  sentences word by word): the file holds every sentence of the split, or exactly the first ``N`` it declares.

A refusal is one :class:`~tokstudy.errors.AlignmentError` naming the file, what its metadata says
(:func:`what_it_says`) and the dataset it was checked against. The metadata's ``dataset`` and ``split`` are
not compared with the dataset's name: a split read from a file of one's own has the file's name, not the
registry's, while the sentences and words the alignment compares are the same; a file for another dataset or
split never holds them.

>>> from tokstudy.analysis.model_errors.predictions import Predictions
>>> covered_part(Predictions((), {"subset": "first:600"}, "p.tsv"), 600, dataset="conll2003:test", n_split=3453)
Coverage(n_sentences=600, subset='first 600 of 3453 sentences')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol

from tokstudy.errors import AlignmentError

#: the metadata key declaring that a file covers part of its split
SUBSET_KEY = "subset"
#: the metadata keys that say which sentences a file holds, in the order messages show them
SAYS_KEYS = ("dataset", "split", "language", SUBSET_KEY)


class PredictionsFile(Protocol):
    """What the checks read of a predictions file (per-word or per-piece): its metadata and where it was read
    from (``None`` when built in memory)."""

    @property
    def metadata(self) -> Mapping[str, str]: ...

    @property
    def source(self) -> str | None: ...


@dataclass(frozen=True)
class Coverage:
    """The sentences of a split a predictions file holds: its first ``n_sentences``.

    Attributes:
        n_sentences: how many of the split's first sentences the file holds.
        subset: ``""`` when that is the whole split, else what part it is (``"first 600 of 3453 sentences"``),
            to be stated wherever results are shown.
    """

    n_sentences: int
    subset: str = ""


def what_it_says(predictions: PredictionsFile) -> str:
    """The file and its account of what it holds, for messages.

    >>> from tokstudy.analysis.model_errors.predictions import Predictions
    >>> what_it_says(Predictions((), {"model": "m", "dataset": "conll2003", "split": "test"}, "p.tsv"))
    'p.tsv (it says dataset=conll2003 split=test)'
    >>> what_it_says(Predictions((), {}, "p.tsv"))
    'p.tsv'
    """
    said = " ".join(f"{k}={predictions.metadata[k]}" for k in SAYS_KEYS if k in predictions.metadata)
    src = predictions.source or "predictions"
    return f"{src} (it says {said})" if said else src


def declared_subset(predictions: PredictionsFile) -> int | None:
    """``N`` of a ``subset=first:N`` declaration, ``None`` without one; any other value is refused.

    >>> from tokstudy.analysis.model_errors.predictions import Predictions
    >>> declared_subset(Predictions((), {"subset": "first:1000"}))
    1000
    """
    value = predictions.metadata.get(SUBSET_KEY)
    if value is None:
        return None
    kind, _, n = str(value).partition(":")
    if kind.strip() != "first" or not n.strip().isdigit() or int(n) < 1:
        raise AlignmentError(
            f"{predictions.source or 'predictions'}: metadata {SUBSET_KEY}={value!r} is not understood; "
            "the only declared subset is 'first:N' (the split's first N sentences, N >= 1)"
        )
    return int(n)


def check_declared_count(predictions: PredictionsFile, n_held: int) -> None:
    """Refuse a file holding ``n_held`` sentences that declares a subset of fewer (or one not understood)."""
    first = declared_subset(predictions)
    if first is not None and n_held > first:
        raise AlignmentError(
            f"{what_it_says(predictions)}: declares {SUBSET_KEY}=first:{first} but holds {n_held} sentences"
        )


def covered_part(predictions: PredictionsFile, n_held: int, *, dataset: str, n_split: int) -> Coverage:
    """The part of ``dataset`` (its label; ``n_split`` non-empty sentences) that a file holding ``n_held``
    sentences covers: the whole split, or the first ``N`` of its ``subset=first:N``; any other count raises
    :class:`~tokstudy.errors.AlignmentError` naming the file, what it says and the dataset."""
    check_declared_count(predictions, n_held)
    first = declared_subset(predictions)
    if first is not None and first < n_split:
        part = Coverage(first, f"first {first} of {n_split} sentences")
        what = f"the first {first} sentences of dataset {dataset!r}, as declared"
    else:
        part = Coverage(n_split)
        what = f"dataset {dataset!r} has {n_split} (non-empty) sentences"
    if n_held != part.n_sentences:
        raise AlignmentError(
            f"{what_it_says(predictions)}: {n_held} predicted sentences but {what}; predictions must cover the "
            f"whole split, or declare the part they cover with a '# {SUBSET_KEY}=first:N' metadata line"
        )
    return part
