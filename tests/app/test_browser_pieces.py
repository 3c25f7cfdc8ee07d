"""The explorer's per-piece strip in a real browser (Debian's chromium driven by Playwright): a sentence opened by
its link shows, for the model whose per-piece predictions sit beside its word predictions, each piece in the
colour of its own label, and the words whose pieces disagree outlined."""

from __future__ import annotations

import shutil

import pytest

from analysis_app.services.explorer import entity_colour
from analysis_app.services.piece_labels import load_piece_labels
from tests.app.browser import CHROMIUM, alerts, chromium_page, exceptions, running_app, wait_idle
from tests.app.conftest import MODEL_NAME
from tests.app.test_explorer_pieces import _write_pieces

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # a streamlit server and a browser
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_a_sentences_pieces_in_their_own_colours(results_dir, conll_test, tmp_path):
    from tokstudy.tokenization.loading import load_tokenizer

    results = tmp_path / "results"
    shutil.copytree(results_dir, results)  # the session's results stay as other tests expect them
    words_file = next((results / "predictions" / MODEL_NAME).glob("*.tsv"))
    by_sentence = load_piece_labels(_write_pieces(words_file, load_tokenizer(results / "tokenizers" / "spm-600")))
    sentence = next(s for s in conll_test if sum(w.disagree for w in by_sentence[s.sent_id]) >= 2)
    shown = by_sentence[sentence.sent_id]
    with running_app(results, tmp_path) as url, chromium_page() as page:
        page.goto(f"{url}/?dataset=conll2003%3Atest&sent={sentence.sent_id}")
        wait_idle(page)
        page.locator(".ts-pl-strip").wait_for(timeout=180_000)
        wait_idle(page)
        assert exceptions(page) == [] and alerts(page, "error") == []
        chips = page.locator(".ts-pl-strip .ts-pl-piece")
        expected = [(label, prob, piece) for w in shown for piece, label, prob in w.pieces]
        assert chips.count() == len(expected)
        for k, (label, prob, piece) in enumerate(expected):
            chip = chips.nth(k)
            assert chip.inner_text() == piece
            assert chip.get_attribute("title") == f"{label} p={prob:.2f}"
            colour = "#ffffff" if label == "O" else entity_colour(label[2:])
            assert chip.evaluate("e => getComputedStyle(e).backgroundColor") == _rgb(colour)
        outlined = page.locator(".ts-pl-strip .ts-pl-disagree")
        assert outlined.count() == sum(w.disagree for w in shown)
        assert outlined.first.evaluate("e => getComputedStyle(e).borderTopStyle") == "dashed"
        page.locator(".ts-pl-strip").screenshot(path=str(tmp_path / "pieces.png"))
