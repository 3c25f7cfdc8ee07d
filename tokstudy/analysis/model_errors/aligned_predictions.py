"""Aligning a predictions file to the segmentation table, word by word, never by guesswork.

Predicted sentence ``k`` (its ``sent_id``) is matched to the table's sentence with
``sent_id == k`` in the chosen dataset; every dataset sentence must be predicted,
and each predicted sentence must have exactly the dataset's words (and gold tags,
unless ``check_gold=False``). A file may instead cover a *declared subset* of the split:
the metadata line ``# subset=first:N`` (what the fine-tuner writes when it evaluates
only the first ``N`` sentences, the study's ``max_eval``) makes the first ``N``
sentences of the split the ones that must all be predicted (the check per-piece files get as well:
:func:`~tokstudy.analysis.model_errors.predictions_metadata.covered_part`); the result says so in
:attr:`AlignedPredictions.subset`, and everything computed from it covers only them. Any difference raises
:class:`~tokstudy.errors.AlignmentError` naming the sentence, the word position
and both words, so a shifted or truncated file can never produce a number.

>>> # aligned = align_predictions(table, read_predictions("preds.tsv"), dataset="conll2003:test")
>>> # aligned.error.mean()   # word error rate
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tokstudy.analysis.model_errors.predictions import Predictions
from tokstudy.analysis.model_errors.predictions_metadata import covered_part
from tokstudy.analysis.table import SegmentationTable
from tokstudy.errors import AlignmentError


@dataclass(frozen=True)
class AlignedPredictions:
    """Predictions laid over the table's rows of one dataset.

    Attributes:
        dataset: the table's label of the dataset (``name:split``).
        rows: ``int64`` table rows, in table order (all rows of the dataset).
        gold: gold tag per row (from the predictions file).
        pred: predicted tag per row.
        error: ``bool`` per row, ``pred != gold``.
        model: the model name from the file's metadata (or its file name).
        subset: ``""`` when the whole split is predicted, else what part of it is
            (``"first 1000 of 3453 sentences"``), to be stated wherever results are shown.
    """

    dataset: str
    rows: np.ndarray
    gold: list[str]
    pred: list[str]
    error: np.ndarray
    model: str
    subset: str = ""

    def __len__(self) -> int:
        return len(self.rows)


def choose_dataset(table: SegmentationTable, predictions: Predictions, dataset: str | None) -> str:
    """The dataset label to align to: explicit, the table's only one, or from the file's metadata."""
    if dataset is not None:
        if dataset not in table.datasets:
            raise AlignmentError(f"dataset {dataset!r} is not in the table; it has {list(table.datasets)}")
        return dataset
    if len(table.datasets) == 1:
        return table.datasets[0]
    meta = predictions.metadata
    if "dataset" in meta and "split" in meta:
        candidates = [
            label
            for label, (name, split, lang) in zip(table.datasets, table.dataset_keys)
            if name == meta["dataset"] and split == meta["split"] and meta.get("language", lang) == lang
        ]
        if len(candidates) == 1:
            return candidates[0]
    raise AlignmentError(
        f"{predictions.source}: cannot tell which of the table's datasets {list(table.datasets)} these "
        "predictions are for; name it (dataset=... / --predictions-dataset) or write dataset= and split= metadata"
    )


def align_predictions(
    table: SegmentationTable,
    predictions: Predictions,
    *,
    dataset: str | None = None,
    check_gold: bool = True,
    unseen_as_o: Collection[str] = (),
) -> AlignedPredictions:
    """Match every word of ``predictions`` to its table row (see the module docstring).

    ``unseen_as_o``: dataset tags the fine-tuner never saw in training and wrote as gold ``O`` (its
    ``unseen_labels="map_o"``); the gold check accepts ``O`` for them, and errors are counted against the file's
    gold, as the model's score was."""
    unseen = frozenset(unseen_as_o)
    label = choose_dataset(table, predictions, dataset)
    d = table.datasets.index(label)
    src = predictions.source or "predictions"
    sents = np.flatnonzero(table.sentence_dataset == d)
    starts = table.sentence_offsets[sents]
    part = covered_part(predictions, len(predictions.sentences), dataset=label, n_split=len(sents))
    sents, starts = sents[: part.n_sentences], starts[: part.n_sentences]
    by_id = {int(table.sent_id[s]): i for i, s in enumerate(starts.tolist())}
    order = np.empty(len(sents), dtype=np.int64)
    seen = np.zeros(len(sents), dtype=bool)
    for k, ps in enumerate(predictions.sentences):
        i = by_id.get(ps.sent_id)
        where = f"{src}" + (f":{ps.line}" if ps.line else "") + f": sentence {ps.sent_id}"
        if i is None:
            raise AlignmentError(f"{where}: dataset {label!r} has no sentence with this id")
        if seen[i]:
            raise AlignmentError(f"{where}: this sentence is predicted twice")
        seen[i] = True
        order[i] = k
        _check_sentence(table, int(sents[i]), ps, where, check_gold=check_gold, unseen=unseen)
    gold: list[str] = []
    pred: list[str] = []
    rows = []
    for i in range(len(sents)):
        ps = predictions.sentences[int(order[i])]
        g = int(sents[i])
        rows.append(np.arange(table.sentence_offsets[g], table.sentence_offsets[g + 1]))
        gold.extend(ps.gold)
        pred.extend(ps.pred)
    rows_arr = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    error = np.fromiter((p != g for p, g in zip(pred, gold)), dtype=bool, count=len(gold))
    model = predictions.metadata.get("model") or (Path(predictions.source).stem if predictions.source else "model")
    return AlignedPredictions(label, rows_arr, gold, pred, error, model, part.subset)


def _check_sentence(table: SegmentationTable, g: int, ps, where: str, *, check_gold: bool, unseen: frozenset) -> None:
    """Table sentence ``g`` and predicted sentence ``ps`` have the same words and (with ``check_gold``) the same
    gold tags, a tag of ``unseen`` given as ``O`` accepted; else an :class:`AlignmentError` naming ``where``."""
    a, b = int(table.sentence_offsets[g]), int(table.sentence_offsets[g + 1])
    if b - a != len(ps.words):
        raise AlignmentError(
            f"{where}: {len(ps.words)} predicted words but the dataset sentence has {b - a} "
            f"(dataset starts {[table.word(r) for r in range(a, min(b, a + 5))]}, "
            f"predictions start {list(ps.words[:5])})"
        )
    tags = table.tags
    for j, w in enumerate(ps.words):
        if table.word(a + j) != w:
            raise AlignmentError(
                f"{where}, word {j}: predictions have {w!r} where the dataset has {table.word(a + j)!r}"
            )
        want = tags[table.tag_code[a + j]]
        if check_gold and table.labelled[a + j] and want != ps.gold[j] and not (ps.gold[j] == "O" and want in unseen):
            raise AlignmentError(
                f"{where}, word {j} ({w!r}): gold tag {ps.gold[j]!r} in the predictions but "
                f"{want!r} in the dataset (are both IOB2? tags the model never saw in training may be given "
                "as unseen_as_o; check_gold=False uses the file's gold tags)"
            )
