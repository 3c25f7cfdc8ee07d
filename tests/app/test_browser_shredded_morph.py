"""The Shredded words and Morpheme boundaries pages in a real browser (Debian's chromium driven by Playwright).

The app is started as `make app` does, on the three-tokenizer results of ``results_dir``. Shredded words: the
CSV the page downloads equals a Counter over CoNLL-2003 test encoded with sentencepiece, and a word's link
opens the explorer on a sentence holding it. Morpheme boundaries: an uploaded SIGMORPHON file gives the
precision and recall of a direct recount; a file whose morphs do not spell a word is one error naming it
and its line.
"""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from tests.app.browser import CHROMIUM, alerts, chromium_page, exceptions, goto_page, running_app, wait_idle

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # a streamlit server and a browser
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]

MORPHS = {"played": ["play", "ed"], "unhappiness": ["un", "happi", "ness"], "governments": ["govern", "ment", "s"]}


@pytest.fixture(scope="module")
def app_url(results_dir, tmp_path_factory):
    with running_app(results_dir, tmp_path_factory.mktemp("app36")) as url:
        yield url


@pytest.fixture
def page():
    with chromium_page() as p:
        yield p


def _encoder(results_dir, name):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(results_dir / "tokenizers" / name / "spiece.model"))
    return lambda w: sp.encode(w, out_type=str)


def _download(page, label: str) -> list[dict]:
    button = page.get_by_test_id("stDownloadButton").filter(has_text=label)
    with page.expect_download() as download:
        button.locator("button").click()
    return list(csv.DictReader(open(download.value.path(), encoding="utf-8")))


def test_shredded_page_ranking_and_a_words_sentence(page, app_url, results_dir, conll_test):
    page.goto(app_url)
    wait_idle(page)
    goto_page(page, "shredded")
    page.get_by_test_id("stDataFrame").nth(1).wait_for(timeout=180_000)
    wait_idle(page)
    assert exceptions(page) == [] and alerts(page, "error") == []
    rows = _download(page, "Download the ranking (CSV)")
    freq = Counter(w for s in conll_test for w in s.words)
    encode = _encoder(results_dir, "spm-1200")
    pieces = {w: encode(w) for w in freq}
    expected = sorted((w for w in freq if len(pieces[w]) >= 3), key=lambda w: (-freq[w], -len(pieces[w]), w))
    mine = [r for r in rows if r["tokenizer"] == "spm-1200"]
    assert [r["word"] for r in mine] == expected
    assert [int(r["frequency"]) for r in mine] == [freq[w] for w in expected]
    # the first word's first sentence, opened in the explorer by its link
    word = page.locator('[data-testid="stSelectbox"] input[aria-label="Word"]').input_value()
    page.get_by_test_id("stPageLink").first.click()
    wait_idle(page)
    page.locator("table.ts-explorer").wait_for(timeout=90_000)
    assert exceptions(page) == []
    shown = page.locator("table.ts-explorer td.ts-word").all_inner_texts()
    assert word in shown, (word, shown)


def test_morph_page_upload_and_bad_file(page, app_url, results_dir, tmp_path):
    page.goto(app_url)
    wait_idle(page)
    goto_page(page, "morph")
    gold = tmp_path / "eng.word.dev.tsv"
    gold.write_text(
        "\n".join(f"{w}\t{m[0]} " + " ".join("@@" + x for x in m[1:]) + "\t110" for w, m in MORPHS.items()) + "\n",
        encoding="utf-8",
    )
    uploader = page.get_by_test_id("stMain").get_by_test_id("stFileUploader").locator('input[type="file"]')
    uploader.set_input_files(str(gold))
    wait_idle(page)
    page.get_by_test_id("stDataFrame").first.wait_for(timeout=90_000)
    assert exceptions(page) == [] and alerts(page, "error") == []
    rows = [r for r in _download(page, "Download the figures (CSV)") if r["band"] == "all"]
    assert [r["tokenizer"] for r in rows] == ["spm-600", "spm-1200", "spm-2400"]
    for r in rows:
        encode = _encoder(results_dir, r["tokenizer"])
        tp = pred = n_gold = 0
        for w, m in MORPHS.items():
            tokens = [t for t in (p.replace("\u2581", "") for p in encode(w)) if t]
            g, p = _cuts(m), _cuts(tokens)
            tp, pred, n_gold = tp + len(g & p), pred + len(p), n_gold + len(g)
        assert float(r["recall"]) == pytest.approx(tp / n_gold, abs=1e-4)
        assert float(r["precision"]) == pytest.approx(tp / pred, abs=1e-4)
    bad = tmp_path / "mine.tsv"
    bad.write_text("played\tplay @@ed\t100\nwalking\twal @@kin\t100\n", encoding="utf-8")
    uploader.set_input_files(str(bad))
    wait_idle(page)
    assert exceptions(page) == []
    assert alerts(page, "error") == ["mine.tsv:2: the morphs 'wal + kin' do not spell the word 'walking'"]


def _cuts(parts):
    out, at = set(), 0
    for p in parts[:-1]:
        at += len(p)
        out.add(at)
    return out
