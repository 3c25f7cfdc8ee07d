"""The explorer colours a word's pieces by their own labels when a model's per-piece predictions sit beside its
word predictions (AppTest, real CoNLL-2003 test and a real SentencePiece tokenizer)."""

from __future__ import annotations

from analysis_app.services.explorer import entity_colour
from tests.app.conftest import MODEL_NAME, new_app, no_exceptions


def _html(at) -> str:
    return "\n".join(h.proto.body for h in at.html)


def test_pieces_are_coloured_by_their_own_labels(app_env, pieces_results, conll_test, monkeypatch):
    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(pieces_results.root))
    by_sentence = pieces_results.by_sentence
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
