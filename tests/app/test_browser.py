"""End to end in a real headless browser: start the app, type a sentence, check the rendered pieces.

Debian's chromium (``/usr/bin/chromium``, installed by ``.ci/run``) is driven by Selenium
through ``/usr/bin/chromedriver``; nothing is downloaded. The app runs in a subprocess
started by :func:`tests.app.browser.running_app` (the Playwright tests use the same). A
screenshot is saved under pytest's tmp dir and, if ``$TOKSTUDY_ARTIFACTS`` is set, there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.app.browser import running_app

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SENTENCE = "Peter Blackburn flew from Ouagadougou to Reykjavik ."

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # ~20 s: starts a streamlit server and a browser
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium chromium-driver)",
    ),
    pytest.mark.skipif(
        not CHROMEDRIVER.exists(), reason="needs /usr/bin/chromedriver (apt-get install chromium-driver)"
    ),
]


@pytest.fixture
def app_server(results_dir, tmp_path):
    with running_app(results_dir, tmp_path) as url:
        yield url


@pytest.fixture
def browser(tmp_path):
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


def test_typed_sentence_renders_every_tokenizers_pieces(app_server, browser, results_dir, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from analysis_app.services.text import split_words
    from tokstudy.tokenization.loading import load_tokenizer

    browser.get(app_server)
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
