"""The Errors page in a real browser (Debian's chromium through Playwright's ``executable_path``, nothing
downloaded), on a results folder the study's pipeline wrote (``demo_results``): each model is shown with
the tokenizer it was trained with, r as the study itself computed it; one model's errors under the other
tokenizers are behind a folded "Crossed" view, which says so."""

from __future__ import annotations

import csv
import json

import pytest

from tests.app.browser import CHROMIUM, alerts, chromium_page, exceptions, goto_page, running_app, wait_idle

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # a study run (~1 min), a streamlit server and a browser
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]


def _download(page, label: str) -> tuple[str, list[dict]]:
    """Click the download button ``label``; the file's suggested name and its rows."""
    button = page.get_by_test_id("stDownloadButton").filter(has_text=label)
    with page.expect_download() as download:
        button.locator("button").click()
    with open(download.value.path(), encoding="utf-8", newline="") as f:
        return download.value.suggested_filename, list(csv.DictReader(f))


def test_errors_page_pairs_each_model_with_its_own_tokenizer(demo_results, tmp_path):
    # the study's own r: each fine-tuned model's errors against the tokenizer it was pre-trained with
    study = {
        row["tokenizer"]: row["all"]["r"] for row in json.loads((demo_results / "tables/correlation.json").read_text())
    }
    assert sorted(study) == ["sp-unigram-1k", "sp-unigram-500"]
    with running_app(demo_results, tmp_path) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector('[data-testid="stApp"]')
        wait_idle(page)
        goto_page(page, "errors")
        assert exceptions(page) == [] and alerts(page, "error") == []
        assert not any("not known" in t for t in alerts(page, "info")), alerts(page, "info")
        main = page.get_by_test_id("stMain")

        # the paired view comes first: one row per model (and word set), r under the model's own tokenizer
        name, paired = _download(page, "Download paired correlations (CSV)")
        assert name == "correlation_paired.csv" and len(paired) == 2 * 2
        for model, r in study.items():
            (row,) = [p for p in paired if p["model"] == model and p["words"] == "all words"]
            assert row["tokenizer"] == model
            assert float(row["pearson_r"]) == pytest.approx(r, abs=1e-9)

        # the crossed view: folded, labelled, below the paired table
        crossed = main.get_by_test_id("stExpander").filter(has_text="Crossed:")
        assert crossed.count() == 1
        title = crossed.locator("summary").inner_text()
        assert "Crossed: sp-unigram-1k's errors segmented by other tokenizers than its own (sp-unigram-1k)" in title
        assert crossed.locator("details").get_attribute("open") is None
        button = page.get_by_test_id("stDownloadButton").filter(has_text="Download correlations (CSV)")
        assert not button.is_visible()  # on demand only
        first_table = main.get_by_test_id("stDataFrame").first
        assert first_table.is_visible()
        assert first_table.bounding_box()["y"] < crossed.bounding_box()["y"]

        crossed.locator("summary").click()
        wait_idle(page)
        assert exceptions(page) == []
        name, rows = _download(page, "Download correlations (CSV)")
        assert name == "correlation.csv"
        everything = {row["tokenizer"]: row for row in rows if row["words"] == "all words"}
        assert {t: row["pairing"] for t, row in everything.items()} == {
            "sp-unigram-500": "crossed",
            "sp-unigram-1k": "paired",
        }
        assert {row["model"] for row in rows} == {"sp-unigram-1k"}
        # model sp-unigram-1k under its own tokenizer: its paired r (the demo's barely trained models both label
        # every word O, so under sp-unigram-500 it happens to equal model sp-unigram-500's)
        assert float(everything["sp-unigram-1k"]["pearson_r"]) == pytest.approx(study["sp-unigram-1k"], abs=1e-9)
