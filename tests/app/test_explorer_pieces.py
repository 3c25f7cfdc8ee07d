"""The explorer colours a word's pieces by their own labels when a model's per-piece predictions sit beside its
word predictions (AppTest, real CoNLL-2003 test and a real SentencePiece tokenizer)."""

from __future__ import annotations

import shutil

import numpy as np

from analysis_app.services.explorer import entity_colour
from analysis_app.services.piece_labels import load_piece_labels
from tests.app.conftest import MODEL_NAME, new_app, no_exceptions
from tokstudy.analysis.model_errors.piece_predictions import (
    PieceSentence,
    PredictedWord,
    piece_predictions_path,
    write_piece_predictions,
)
from tokstudy.analysis.model_errors.predictions import read_predictions


def _html(at) -> str:
    return "\n".join(h.proto.body for h in at.html)


def _write_pieces(words_file, segmenter):
    """Per-piece predictions whose first piece carries the word's prediction and whose later pieces say ``O``."""
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


def test_pieces_are_coloured_by_their_own_labels(app_env, conll_test, tmp_path, monkeypatch):
    from tokstudy.tokenization.loading import load_tokenizer

    results = tmp_path / "results"
    shutil.copytree(app_env, results)  # the session's results stay as other tests expect them
    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(results))
    words_file = next((results / "predictions" / MODEL_NAME).glob("*.tsv"))
    segmenter = load_tokenizer(results / "tokenizers" / "spm-600")
    pieces_path = _write_pieces(words_file, segmenter)
    by_sentence = load_piece_labels(pieces_path)
    # a sentence with a multi-piece word predicted as an entity: its pieces disagree
    k = next(i for i, s in enumerate(conll_test) if any(w.disagree for w in by_sentence[s.sent_id]))

    at = new_app().run()
    at.radio(key="ts_ex_mode").set_value("dataset").run()
    at.number_input(key="ts_ex_sent").set_value(k).run()
    no_exceptions(at)
    html = _html(at)
    shown = by_sentence[conll_test[k].sent_id]
    assert f"<b>pieces: {MODEL_NAME}</b> ({sum(w.disagree for w in shown)} word(s) whose pieces disagree)" in html
    assert [w.word for w in shown] == list(conll_test[k].words)
    for w in shown:
        for piece, label, prob in w.pieces:
            colour = "#ffffff" if label == "O" else entity_colour(label[2:])
            assert f'style="background:{colour}" title="{label} p={prob:.2f}">{piece}</span>' in html
    disagree = next(w for w in shown if w.disagree)
    assert f"first → {disagree.pieces[0][1]}" in html and "majority → " in html
    assert html.count('class="ts-pl-word ts-pl-disagree"') == sum(w.disagree for w in shown)
    # the per-piece file is not offered as another model's word predictions
    assert not any("pieces" in e.value for e in at.error), [e.value for e in at.error]


def test_no_strip_without_a_per_piece_file(app_env):
    at = new_app().run()
    at.radio(key="ts_ex_mode").set_value("dataset").run()
    no_exceptions(at)
    assert "ts-pl-strip" not in _html(at)
