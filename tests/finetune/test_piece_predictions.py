"""Per-piece predictions of the fine-tuner: one row per piece the model saw, probabilities that sum to 1, and the
first piece's label equal to the word predictions, exactly (a tiny random ALBERT on CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from tokstudy.analysis.model_errors.piece_agreement import word_tags
from tokstudy.analysis.model_errors.piece_predictions import piece_predictions_path, read_piece_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.data.types import Dataset, Sentence

LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")
SENTENCES = [
    ["EU", "rejects", "German", "call", "to", "boycott", "British", "lamb", "."],
    ["Peter", "Blackburn"],
    # long enough for several windows of 16 pieces, with a word longer than a window
    ["The", "Supercalifragilisticexpialidociousnessfulnessitudeousnessology", "of", "Brussels", "and", "Antwerp"]
    + ["said", "the", "European", "Commission", "on", "Thursday", "in", "a", "statement"] * 3,
    ["x"],
]


@pytest.fixture(scope="module")
def random_head(tiny_model):
    import torch

    from pretrain.finetune.modeling import load_for_task

    torch.manual_seed(3)
    model, tok = load_for_task(tiny_model, "ner", LABELS)
    return model, tok


def _dataset() -> Dataset:
    tags = [["O"] * len(s) for s in SENTENCES]
    tags[1] = ["B-PER", "I-PER"]
    return Dataset(tuple(Sentence(tuple(w), tuple(t), sent_id=i) for i, (w, t) in enumerate(zip(SENTENCES, tags))))


def test_one_row_per_piece_probabilities_sum_to_one_first_piece_is_the_word_prediction(random_head):
    from pretrain.finetune.features import word_pieces
    from pretrain.finetune.predict import predict_piece_probs, predict_tags

    model, tok = random_head
    pieces = word_pieces(tok, SENTENCES)
    kw = dict(max_length=16, stride=4, batch_size=2, pieces=pieces)
    probs = predict_piece_probs(model, tok, SENTENCES, **kw)
    tags = predict_tags(model, tok, SENTENCES, dict(enumerate(LABELS)), **kw)
    long_word = SENTENCES[2][1]
    assert len(pieces[2][1]) > 14  # the long word does not fit a window of 16 (14 pieces)
    for s, sent in enumerate(SENTENCES):
        assert len(probs[s]) == len(sent)
        for w, word in enumerate(sent):
            p = probs[s][w]
            want = 14 if word == long_word else len(pieces[s][w])
            assert p.shape == (want, len(LABELS))
            assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5) and (p >= 0).all()
            assert LABELS[int(p[0].argmax())] == tags[s][w]


def test_written_file_has_a_line_per_piece_and_first_piece_aggregation_equals_word_predictions(random_head, tmp_path):
    from pretrain.finetune.evaluation import piece_sentences, score_split, write_split_piece_predictions

    model, tok = random_head
    ds = _dataset()
    id2label = dict(enumerate(LABELS))
    _, pred = score_split(model, tok, ds, task="ner", id2label=id2label, max_length=16, stride=4)
    sentences = piece_sentences(model, tok, ds, max_length=16, stride=4)
    path = write_split_piece_predictions(tmp_path / "p.pieces.tsv", sentences, id2label, metadata={"seed": 1})
    back = read_piece_predictions(path)
    body = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")][1:]
    assert len(body) == sum(len(w.pieces) for s in sentences for w in s.words)
    assert back.labels == LABELS and back.metadata["seed"] == "1"
    assert word_tags(back, "first") == [list(p) for p in pred]
    for s_mem, s_file in zip(sentences, back.sentences):
        for a, b in zip(s_mem.words, s_file.words):
            assert a.pieces == b.pieces and a.n_pieces == b.n_pieces and a.best == b.best
            assert np.allclose(a.probs, b.probs, atol=1e-6)
            assert "".join(b.pieces).replace("▁", "") == b.word or b.n_pieces > len(b.pieces)


def test_finetune_writes_the_pieces_file_beside_the_word_predictions(tiny_model, tmp_path):
    from pretrain.cli import main as pretrain_main
    from pretrain.finetune.config import FinetuneConfig
    from pretrain.finetune.run import finetune
    from tests.conftest import corpus_path
    from tests.finetune.conftest import QUICK

    corpus_path("snips")
    small = {**QUICK, "epochs": 1, "max_train_sentences": 200, "max_eval_sentences": 60}
    cfg = FinetuneConfig(
        model=str(tiny_model), task="ner", dataset="snips", label_all_pieces=True, piece_predictions=True, **small
    )
    assert "piece_predictions" not in cfg.training_key()
    finetune(cfg, tmp_path / "run")
    words = tmp_path / "run" / "seed-1" / "predictions.test.tsv"
    pieces = read_piece_predictions(piece_predictions_path(words))
    assert pieces.metadata["subset"] == "first:60" and len(pieces.sentences) == 60
    assert word_tags(pieces, "first") == [list(s.pred) for s in read_predictions(words)]
    # `pretrain evaluate --piece-predictions`: the saved model writes the same pieces again
    again = tmp_path / "again.pieces.tsv"
    code = pretrain_main(
        ["evaluate", "--model", str(tmp_path / "run" / "seed-1" / "model"), "--dataset", "snips", "--split", "test"]
        + ["--unseen-labels", "map_o", "--piece-predictions", str(again), "--device", "cpu"]
    )
    assert code == 0
    back = read_piece_predictions(again)
    first60 = back.sentences[:60]
    assert [[w.best for w in s.words] for s in first60] == [[w.best for w in s.words] for s in pieces.sentences]
