"""Find a dataset sentence and each model's predicted tags for it, through the library's strict alignment.

A predictions file is aligned once to its whole dataset with
:func:`tokstudy.analysis.model_errors.aligned_predictions.align_predictions` (every word checked; a mismatch
raises :class:`~tokstudy.errors.AlignmentError`, which the page shows as an error);
the explorer then looks a sentence's tags up by ``sent_id``. A file that covers a
declared subset of the split has no tags for the other sentences (``None``), and says
which part it covers.

>>> from tokstudy.data.types import Dataset, Sentence
>>> ds = Dataset(
...     (Sentence(("a",), ("O",), sent_id=0), Sentence(("EU",), ("B-ORG",), sent_id=1)), name="d", split="test"
... )
>>> find_sentence(ds, 1)
1
>>> from tokstudy.analysis.model_errors.predictions import Predictions, PredictedSentence
>>> p = Predictions((PredictedSentence(("a",), ("O",), ("O",), 0), PredictedSentence(("EU",), ("B-ORG",), ("O",), 1)))
>>> sentence_predictions(ds, p).tags(1)
('O',)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.table import segmentation_table


def find_sentence(ds, sent_id: int) -> int:
    """Position in ``ds`` of the sentence whose ``sent_id`` is ``sent_id`` (``IndexError`` if none)."""
    if 0 <= sent_id < len(ds) and ds[sent_id].sent_id == sent_id:
        return sent_id
    for i, s in enumerate(ds):
        if s.sent_id == sent_id:
            return i
    raise IndexError(f"no sentence {sent_id} in {ds.name}:{ds.split} ({len(ds)} sentences)")


@dataclass(frozen=True)
class SentencePredictions:
    """One model's predicted tags, by sentence id, after strict alignment to the dataset.

    Attributes:
        model: the model's name (file metadata, else file name).
        subset: ``""`` when every sentence of the split is predicted, else the part that is
            (``"first 150 of 3453 sentences"``).
        by_sent_id: predicted tags of each predicted sentence.
    """

    model: str
    subset: str
    by_sent_id: dict

    def tags(self, sent_id: int) -> tuple[str, ...] | None:
        """The sentence's predicted tags; ``None`` only for a sentence outside a declared subset."""
        return self.by_sent_id.get(int(sent_id))


def sentence_predictions(ds, predictions) -> SentencePredictions:
    """Align ``predictions`` to ``ds`` (raises ``AlignmentError`` on any mismatch) and index them by sentence."""
    table = segmentation_table([ds], [], progress=False)  # words only: alignment needs no pieces
    aligned = align_predictions(table, predictions, dataset=table.datasets[0])
    sent = table.sentence[aligned.rows]
    bounds = np.flatnonzero(np.diff(sent)) + 1
    starts = [0, *bounds.tolist()]
    ends = [*bounds.tolist(), len(sent)]
    by_id = {int(table.sent_id[aligned.rows[a]]): tuple(aligned.pred[a:b]) for a, b in zip(starts, ends) if b > a}
    return SentencePredictions(aligned.model, aligned.subset, by_id)
