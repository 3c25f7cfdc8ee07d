"""The app on the app tests' results folder, in a real headless browser: one server for the whole module.

The app is started once, as `make app` does (:func:`tests.app.browser.running_app`), on ``pieces_results``:
``results_dir``'s three tokenizers and model, with the model's per-piece predictions beside its word predictions.
Each test opens its own browser session. Debian's chromium (``/usr/bin/chromium``, installed by ``.ci/run``) is
driven by Playwright through ``executable_path`` and, for the typed sentence, by Selenium through
``/usr/bin/chromedriver``; nothing is downloaded.

* Explorer: a typed sentence shows every tokenizer's pieces exactly as the tokenizer gives them (Selenium; a
  screenshot is saved under pytest's tmp dir and, if ``$TOKSTUDY_ARTIFACTS`` is set, there); a sentence opened
  by its link shows each piece in the colour of its own label, the words whose pieces disagree outlined.
* Shredded words: the CSV the page downloads equals a Counter over CoNLL-2003 test encoded with sentencepiece,
  and a word's link opens the explorer on a sentence holding it.
* Morpheme boundaries: an uploaded SIGMORPHON file gives the precision and recall of a direct recount; a file
  whose morphs do not spell a word is one error naming it and its line.
* Languages: MultiCoNER's 11 dev languages (a link picks Korean in the sidebar), the CSV of Table 4 per
  language, a language opened in the explorer.
"""

from __future__ import annotations

import csv
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from analysis_app.services.explorer import entity_colour
from tests.app.browser import (
    CHROMIUM,
    alerts,
    exceptions,
    goto_page,
    open_url,
    running_app,
    sidebar_dataset,
    wait_idle,
)
from tests.morph_recount import boundary_prf, surface

CHROMEDRIVER = Path("/usr/bin/chromedriver")
SENTENCE = "Peter Blackburn flew from Ouagadougou to Reykjavik ."
MORPHS = {"played": ["play", "ed"], "unhappiness": ["un", "happi", "ness"], "governments": ["govern", "ment", "s"]}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # a streamlit server and a browser
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]


@pytest.fixture(scope="module")
def app_url(pieces_results, tmp_path_factory):
    with running_app(pieces_results.root, tmp_path_factory.mktemp("results_app")) as url:
        yield url


@pytest.fixture
def selenium_chromium(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1400,1000",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def _save_screenshot(driver, tmp_path: Path) -> Path:
    shot = tmp_path / "app_explorer.png"
    driver.save_screenshot(str(shot))
    if os.environ.get("TOKSTUDY_ARTIFACTS"):
        dest = Path(os.environ["TOKSTUDY_ARTIFACTS"])
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, dest / shot.name)
    return shot


def _download(page, label: str) -> list[dict]:
    """Click the download button ``label``; the rows of the file it gives."""
    button = page.get_by_test_id("stDownloadButton").filter(has_text=label)
    with page.expect_download() as download:
        button.locator("button").click()
    with open(download.value.path(), encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.skipif(not CHROMEDRIVER.exists(), reason="needs /usr/bin/chromedriver (apt-get install chromium-driver)")
def test_typed_sentence_renders_every_tokenizers_pieces(app_url, selenium_chromium, results_dir, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from analysis_app.services.text import split_words
    from tokstudy.tokenization.loading import load_tokenizer

    browser = selenium_chromium
    browser.get(app_url)
    wait = WebDriverWait(browser, 60)
    area = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "textarea")))
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "table.ts-explorer")))  # the example sentence
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys(Keys.DELETE)
    area.send_keys(SENTENCE)
    area.send_keys(Keys.CONTROL, Keys.ENTER)

    words = split_words(SENTENCE)

    def rendered(driver):
        rows = driver.find_elements(By.CSS_SELECTOR, "table.ts-explorer tbody tr")
        if len(rows) != len(words) or rows[1].find_elements(By.CSS_SELECTOR, "td.ts-word")[0].text != words[1]:
            return False
        return rows

    rows = wait.until(rendered)
    for name in ("spm-600", "spm-1200", "spm-2400"):
        expected = load_tokenizer(results_dir / "tokenizers" / name).segment(words).as_lists()
        got = [
            [p.text for p in row.find_elements(By.CSS_SELECTOR, f'td.ts-pieces[data-tokenizer="{name}"] span.ts-piece')]
            for row in rows
        ]
        # the browser shows a lone "▁" piece as text too; compare exactly
        assert got == expected, (name, got, expected)
    shot = _save_screenshot(browser, tmp_path)
    assert shot.stat().st_size > 10_000


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_a_sentences_pieces_in_their_own_colours(page, app_url, pieces_results, conll_test, tmp_path):
    by_sentence = pieces_results.by_sentence
    sentence = next(s for s in conll_test if sum(w.disagree for w in by_sentence[s.sent_id]) >= 2)
    shown = by_sentence[sentence.sent_id]
    page.goto(f"{app_url}/?dataset=conll2003%3Atest&sent={sentence.sent_id}")
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


def _encoder(results_dir, name):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(results_dir / "tokenizers" / name / "spiece.model"))
    return lambda w: sp.encode(w, out_type=str)


def test_shredded_page_ranking_and_a_words_sentence(page, app_url, results_dir, conll_test):
    open_url(page, app_url)
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
    open_url(page, app_url)
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
        precision, recall, *_ = boundary_prf((m, surface(encode(w))) for w, m in MORPHS.items())
        assert float(r["recall"]) == pytest.approx(recall, abs=1e-4)
        assert float(r["precision"]) == pytest.approx(precision, abs=1e-4)
    bad = tmp_path / "mine.tsv"
    bad.write_text("played\tplay @@ed\t100\nwalking\twal @@kin\t100\n", encoding="utf-8")
    uploader.set_input_files(str(bad))
    wait_idle(page)
    assert exceptions(page) == []
    assert alerts(page, "error") == ["mine.tsv:2: the morphs 'wal + kin' do not spell the word 'walking'"]


def test_languages_page_multilingual_table_download_and_a_language_opened_in_the_explorer(page, app_url):
    """MultiCoNER's 11 dev languages: the link picks Korean in the sidebar, so the page's Table 4 per language
    covers every language of its corpus and split; the CSV holds one row per language and tokenizer, scripts
    included; a language picked below opens its first sentence in the explorer."""
    from tests.conftest import corpus_path
    from tokstudy.data.registry import load_dataset

    corpus_path("multiconer2022")
    first = load_dataset("multiconer2022", "dev", language="ko")[0]
    open_url(page, f"{app_url}/languages?dataset=multiconer2022-ko:dev")
    page.get_by_test_id("stMain").get_by_text("Table 4 per language", exact=True).wait_for()
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
    wait_idle(page)
    assert exceptions(page) == [] and alerts(page, "error") == []
    assert sidebar_dataset(page) == "multiconer2022-ko:dev"
    warned = [w for w in alerts(page, "warning") if "unknown pieces in" in w]
    assert len(warned) == 3 and all("ko " in w and "Hangul" in w for w in warned), warned
    rows = _download(page, "Download Table 4 per language (CSV)")
    assert len(rows) == 11 * 3
    assert {r["language"]: r["script"] for r in rows}["ko"] == "Hangul"
    assert {r["language"] for r in rows} == {"bn", "de", "en", "es", "fa", "hi", "ko", "nl", "ru", "tr", "zh"}

    picker = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text="Open a language")
    picker.locator("input").click()
    picker.locator("input").fill("ko (")
    page.keyboard.press("Enter")
    wait_idle(page)
    page.get_by_test_id("stMain").get_by_role("button", name="Open in the explorer").click()
    page.wait_for_url("**/?*sent=*")
    wait_idle(page)
    assert exceptions(page) == []
    assert sidebar_dataset(page) == "multiconer2022-ko:dev"
    words = page.locator("table.ts-explorer tbody tr td.ts-word").all_inner_texts()
    assert words == list(first.words)
