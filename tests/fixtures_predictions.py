"""Predictions from a deterministic rule, for tests and benchmarks that need a model's mistakes but no model.

A hashed share of words is mislabelled, growing with the word's length and inside entities (an entity
word becomes ``O``, an outside word ``B-MISC``), so segmentation, length and entity status all relate to
the errors, as they do for a fine-tuned model. Imported as ``tests.fixtures_predictions`` by the tests
and by the benchmarks (which put the project root first on ``sys.path``).
"""

from __future__ import annotations

import os
import zlib

from tokstudy.data.types import Dataset


def rule_predictions(dataset: Dataset) -> tuple[list[tuple[list[str], list[str], list[str]]], list[int]]:
    """``(words, gold, predicted)`` of every non-empty sentence of ``dataset``, and their sentence ids."""
    out, ids = [], []
    for s in dataset.sentences:
        if not s.words:
            continue
        wrong = [zlib.crc32(w.encode()) % 100 < 5 + 3 * len(w) + 20 * (t != "O") for w, t in zip(s.words, s.tags)]
        out.append((s.words, s.tags, [("O" if t != "O" else "B-MISC") if e else t for t, e in zip(s.tags, wrong)]))
        ids.append(s.sent_id)
    return out, ids


def write_rule_predictions(path: str | os.PathLike, dataset: Dataset, metadata: dict | None = None):
    """Write :func:`rule_predictions` of ``dataset`` to ``path`` (model ``rule``); returns the written file's path."""
    from tokstudy.analysis.model_errors.predictions import write_predictions

    out, ids = rule_predictions(dataset)
    return write_predictions(path, out, metadata={"model": "rule", **(metadata or {})}, sent_ids=ids)
