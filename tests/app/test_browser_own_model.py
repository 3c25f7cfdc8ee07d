"""Your own model on the Errors page, in a real browser (Debian's chromium through Playwright's
``executable_path``, nothing downloaded): a tiny BERT token classifier saved with ``save_pretrained`` is chosen
by path, its prediction of a 40-sentence CoNLL-2003 file runs beside the page with a progress bar, and the
paired table then holds the model's row under its own tokenizer."""

from __future__ import annotations

import csv

import pytest

from tests.app.browser import CHROMIUM, alerts, chromium_page, exceptions, goto_page, running_app, wait_idle
from tests.app.test_errors_own_model import _small_conll
from tests.fixtures_hf_models import hf_token_models  # noqa: F401  (session fixture: one model per family)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]


def test_a_chosen_model_gets_its_paired_row(tmp_path, hf_token_models):  # noqa: F811
    model = hf_token_models["bert"].path
    results = tmp_path / "results"
    _small_conll(results / "data" / "small.conll")
    env = {"TOKSTUDY_APP_ALLOW_DIRS": str(model.parent), "TOKSTUDY_APP_MODEL_CACHE": str(tmp_path / "models")}
    with running_app(results, tmp_path, env=env) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector('[data-testid="stApp"]')
        wait_idle(page)
        goto_page(page, "errors")
        main = page.get_by_test_id("stMain")
        main.get_by_test_id("stExpander").filter(has_text="Your own model").locator("summary").click()
        field = main.get_by_label("Model directory")
        field.fill(str(model))
        field.press("Enter")
        wait_idle(page)
        main.get_by_role("button", name="Predict with this model").click()
        # the progress bar, then (the run ended) the page drawn again with the model's row
        button = page.get_by_test_id("stDownloadButton").filter(has_text="Download paired correlations (CSV)")
        button.wait_for(timeout=120_000)
        wait_idle(page)
        assert exceptions(page) == [] and alerts(page, "error") == []
        assert main.get_by_test_id("stProgress").count() == 0
        with page.expect_download() as download:
            button.locator("button").click()
        with open(download.value.path(), encoding="utf-8", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["words"] == "all words"]
        assert [(r["model"], r["tokenizer"]) for r in rows] == [("bert", "bert")]
        assert 0 < float(rows[0]["n"])
