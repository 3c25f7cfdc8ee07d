"""The Segmentation explorer page (AppTest, real CoNLL-2003 data and tokenizers)."""

from __future__ import annotations

from analysis_app.services.explorer import piece_colour
from tests.app.conftest import new_app, no_exceptions


def _html(at) -> str:
    return "\n".join(h.proto.body for h in at.html)


def test_typed_text_shows_each_tokenizers_pieces(app_env):
    from tokstudy.tokenization.loading import load_tokenizer

    at = new_app().run()
    no_exceptions(at)
    assert at.multiselect(key="ts_w_tokenizers@explorer").value == ["spm-600", "spm-1200", "spm-2400"]
    at.text_area(key="ts_ex_text").set_value("Peter Blackburn visited Ouagadougou .").run()
    no_exceptions(at)
    html = _html(at)
    # every piece of every word under every tokenizer, as sentencepiece gives them
    for name in ("spm-600", "spm-1200", "spm-2400"):
        seg = load_tokenizer(app_env / "tokenizers" / name)
        for pieces in seg.segment(["Peter", "Blackburn", "visited", "Ouagadougou", "."]).as_lists():
            for p in pieces:
                # each piece is a chip whose title is the piece and whose colour is the piece's own
                assert f'title="{p}">{p}</span>' in html
                assert f'<span class="ts-piece ts-unk" title="{p}">' in html or piece_colour(p) in html
    assert html.count("<tr") == 1 + 5
    # one strip per tokenizer, one word group per word
    assert html.count('class="ts-strip"') == 3 and html.count('class="ts-w"') == 3 * 5


def test_dataset_sentence_has_gold_colours_and_predictions(app_env, conll_test):
    at = new_app().run()
    at.radio(key="ts_ex_mode").set_value("dataset").run()
    no_exceptions(at)
    assert at.selectbox(key="ts_w_dataset@explorer").value == "conll2003:test"
    at.number_input(key="ts_ex_sent").set_value(2).run()
    no_exceptions(at)
    s = conll_test[2]
    html = _html(at)
    assert html.count("<tr") == 1 + len(s.words)
    assert "pred: albert-spm-600" in html
    for w, t in zip(s.words, s.tags):
        assert f">{t}</td>" in html
    if any(t.endswith("PER") for t in s.tags):
        assert "background:#ffd6d6" in html


def test_bad_tokenizer_upload_shows_a_clear_error(app_env):
    at = new_app().run()
    at.file_uploader(key="ts_in_tok_upload").set_value(
        ("spm.model", b"\x00\x01 definitely not a model", "application/octet-stream")
    )
    at.run()
    no_exceptions(at)
    assert any("not a SentencePiece model" in e.value for e in at.error), [e.value for e in at.error]


def test_path_outside_allowed_dirs_is_refused(app_env):
    at = new_app().run()
    at.text_input(key="ts_in_tok_path").set_value("/etc/passwd").run()
    at.button(key="ts_in_tok_path_btn").click().run()
    no_exceptions(at)
    assert any("outside the directories" in e.value for e in at.error)


def test_predictions_that_do_not_fit_are_an_error_and_a_subset_is_stated(app_env, conll_test, tmp_path):
    """The explorer uses the library's strict alignment: no shifted guess, a mismatch is an error."""
    from tokstudy.analysis.model_errors.predictions import write_predictions

    sents = [(s.words, s.tags, s.tags) for s in conll_test]
    bad = list(sents)
    bad[5] = (("XXX",) + tuple(bad[5][0][1:]), bad[5][1], bad[5][2])
    pred_dir = app_env / "predictions"
    write_predictions(pred_dir / "shifted-model" / "conll2003_test.tsv", bad, sent_ids=[s.sent_id for s in conll_test])
    write_predictions(
        pred_dir / "subset-model" / "conll2003_test.tsv",
        sents[:10],
        sent_ids=[s.sent_id for s in conll_test[:10]],
        metadata={"model": "subset-model", "subset": "first:10"},
    )
    try:
        at = new_app().run()
        at.radio(key="ts_ex_mode").set_value("dataset").run()
        at.number_input(key="ts_ex_sent").set_value(20).run()
        no_exceptions(at)
        errors = [e.value for e in at.error]
        assert any("'shifted-model' do not fit conll2003:test" in e and "sentence 5, word 0" in e for e in errors), (
            errors
        )
        assert any("cover the first 10 of 3453 sentences" in i.value for i in at.info), [i.value for i in at.info]
        html = _html(at)
        assert "pred: subset-model" in html and "pred: shifted-model" not in html
        at.number_input(key="ts_ex_sent").set_value(3).run()
        assert f">{conll_test[3].tags[0]}</td>" in _html(at)
        assert not any("cover the first 10" in i.value for i in at.info)
    finally:
        import shutil

        shutil.rmtree(pred_dir / "shifted-model")
        shutil.rmtree(pred_dir / "subset-model")
