"""One model's predictions for a dataset, made up so that the Errors page has something to show.

A gold tag is replaced (``O`` by ``B-MISC``, an entity tag by ``O``) with probability
``min(0.05 * (pieces - 1), 0.6)`` under the given segmenter, deterministically (seeded): the model
errs more on words split into more pieces. Used by the app tests' ``results_dir`` and by
``benchmarks/bench_app.py``. Beside them, per-piece predictions of the same model (the explorer's strip of
each piece's own label): :func:`write_synthetic_piece_predictions`.
"""

from __future__ import annotations

import random
from pathlib import Path


def write_synthetic_predictions(
    root: Path, model: str, dataset, segmenter, *, seed: int = 0, model_path: str | None = None
) -> Path:
    """Write ``root/predictions/<model>/<name>_<split>.tsv`` for every sentence of ``dataset``; its path.
    Its header's ``model`` line is ``model_path`` when given (the folder of the model, as the fine-tuner
    writes it), else ``model``."""
    from tokstudy.analysis.model_errors.predictions import write_predictions

    rng = random.Random(seed)
    out = []
    for s in dataset:
        counts = segmenter.segment(list(s.words)).counts
        pred = [
            ("O" if g != "O" else "B-MISC") if rng.random() < min(0.05 * (n - 1), 0.6) else g
            for g, n in zip(s.tags, counts)
        ]
        out.append((s.words, s.tags, pred))
    path = root / "predictions" / model / f"{dataset.name}_{dataset.split}.tsv"
    write_predictions(
        path,
        out,
        metadata={"model": model_path or model, "dataset": dataset.name, "split": dataset.split},
        sent_ids=[s.sent_id for s in dataset],
    )
    return path


def write_synthetic_piece_predictions(words_file: Path, segmenter) -> Path:
    """Per-piece predictions beside the word predictions at ``words_file``: a word's first piece carries the word's
    prediction (probability 0.8) and its later pieces say ``O`` (0.8), so a multi-piece word predicted as an entity
    has pieces that disagree; the path written."""
    import numpy as np

    from tokstudy.analysis.model_errors.piece_predictions import (
        PieceSentence,
        PredictedWord,
        piece_predictions_path,
        write_piece_predictions,
    )
    from tokstudy.analysis.model_errors.predictions import read_predictions

    preds = read_predictions(words_file)
    labels = sorted({t for s in preds for t in (*s.gold, *s.pred)} | {"O"})
    sentences = []
    for s in preds:
        words = []
        for w, g, p, pieces in zip(s.words, s.gold, s.pred, segmenter.segment(list(s.words)).as_lists()):
            probs = np.full((len(pieces), len(labels)), 0.2 / (len(labels) - 1))
            probs[0, labels.index(p)] = 0.8
            probs[1:, labels.index("O")] = 0.8
            words.append(PredictedWord(w, g, len(pieces), tuple(pieces), probs))
        sentences.append(PieceSentence(s.sent_id, tuple(words)))
    return write_piece_predictions(piece_predictions_path(words_file), labels, sentences)
