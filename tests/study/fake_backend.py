"""An in-memory trainer for the study: no torch, no pre-trainer, deterministic scores and predictions.

It fulfils :class:`tokstudy.study.backends.TrainerBackend` with what the study's later stages read:
a model directory per tokenizer, a score per (model, task, seed), per-word predictions for NER
tasks (gold tags with every third sentence's entities missed) and a cost record. Pre-trained
models score 80 + seed, controls 40 + seed, so the report's "pre-training helps" is decided; a task in
a language scores a fixed amount apart (from the language and the tokenizer's name), so that the
languages' scores differ.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np

from tokstudy.analysis.model_errors.piece_predictions import (
    PieceSentence,
    PredictedWord,
    piece_predictions_path,
    write_piece_predictions,
)
from tokstudy.analysis.model_errors.predictions import write_predictions
from tokstudy.study.backends import FinetunedRun, FinetuneRequest, PretrainedModel
from tokstudy.study.config import PretrainSection

#: The cost every fake run reports (energy measured, so the score-against-energy figure is drawn).
FAKE_COST = {
    "wall_seconds": 2.0,
    "device": "cpu",
    "device_count": 1,
    "energy_kwh": 0.001,
    "co2e_kg": 0.0001,
    "method": "fake backend",
    "device_hours": 2.0 / 3600,
}


def _write_model(directory: Path, tokenizer_dir: Path, pretrained: bool) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "fake_model.json").write_text(json.dumps({"tokenizer": tokenizer_dir.name, "pretrained": pretrained}))
    return directory


class FakeBackend:
    """Records every call in ``calls`` as ``(method, tokenizer or model name, ...)``."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def pretrain(
        self, work: Path, tokenizer_dir: Path, raw_files: list[Path], section: PretrainSection, *, progress: bool = True
    ) -> PretrainedModel:
        assert raw_files and all(Path(f).is_file() for f in raw_files)
        self.calls.append(("pretrain", tokenizer_dir.name))
        return PretrainedModel(_write_model(work / "final_model", tokenizer_dir, True), dict(FAKE_COST))

    def untrained_model(self, work: Path, tokenizer_dir: Path, section: PretrainSection) -> Path:
        self.calls.append(("untrained_model", tokenizer_dir.name))
        return _write_model(work / "random_init", tokenizer_dir, False)

    def finetune(self, work: Path, request: FinetuneRequest, *, progress: bool = True) -> FinetunedRun:
        model_dir, task, splits, seed = request.model_dir, request.task, request.splits, request.seed
        model = json.loads((model_dir / "fake_model.json").read_text())
        self.calls.append(("finetune", model["tokenizer"], model["pretrained"], task.label, seed))
        assert len(splits.train) > 0 and len(splits.test) > 0
        predictions = None
        if task.task == "ner":
            sentences = []
            for i, s in enumerate(splits.test):
                pred = ["O"] * len(s.tags) if i % 3 == seed % 3 else list(s.tags)
                sentences.append((s.words, s.tags, pred))
            predictions = write_predictions(
                work / f"seed-{seed}" / "predictions.test.tsv", sentences, sent_ids=[s.sent_id for s in splits.test]
            )
            if request.section.compare_labelling:
                _write_pieces(piece_predictions_path(predictions), splits.test, sentences, seed)
        score = (80.0 if model["pretrained"] else 40.0) + seed
        if task.language:  # languages score apart, and a vocabulary helps some languages more than others
            score -= zlib.crc32(task.language.encode()) % 23
            score += zlib.crc32(f"{model['tokenizer']}{task.language}".encode()) % 5
        return FinetunedRun(
            metric="F1" if task.task == "ner" else "accuracy",
            score=score,
            predictions=predictions,
            dev_score=score - 1.0,
            epochs_run=request.section.epochs,
            cost=dict(FAKE_COST),
        )


def _write_pieces(path: Path, test, sentences, seed: int) -> None:
    """Per-piece predictions whose first piece carries the word prediction: a word has one piece per four
    characters, and every other multi-piece word's later pieces say ``O``."""
    labels = sorted({t for _, gold, pred in sentences for t in (*gold, *pred)} | {"O"})
    out = []
    for s, (words, gold, pred) in zip(test, sentences):
        predicted = []
        for k, (w, g, p) in enumerate(zip(words, gold, pred)):
            n = 1 + len(w) // 4
            rows = np.full((n, len(labels)), 0.1 / max(1, len(labels) - 1))
            rows[0, labels.index(p)] = 0.9
            rows[1:, labels.index("O" if (k + seed) % 2 else p)] = 0.9
            predicted.append(PredictedWord(w, g, n, tuple(w[i * 4 : i * 4 + 4] or "_" for i in range(n)), rows))
        out.append(PieceSentence(s.sent_id, tuple(predicted)))
    write_piece_predictions(path, labels, out)
