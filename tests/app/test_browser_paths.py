"""The paths a researcher takes, in a real browser: Debian's chromium driven by Playwright.

Starts the app as `make app` does (``--results`` a folder the study's pipeline wrote, see
``demo_results``), then: empty start; every page on demo-shaped results; upload a tokenizer,
pick a dataset sentence, switch every page and back (no traceback, the sidebar shows the
real selection each time); the Errors page pairs each model with its own tokenizer; a bad
CoNLL upload names the user's file; the lenient option reads a CoNLL-2002-style file. Each
test opens a fresh browser session (a new context of the module's one chromium: no cookies,
storage or cache of another test; ``tests/app/conftest.py``), and the servers are started once
per results folder. The browser tests on the app tests' own results folder are in test_browser.py.
"""

from __future__ import annotations

import csv
import json

import pytest

from tests.app.browser import (
    CHROMIUM,
    NAV_LABELS,
    PAGES,
    alerts,
    exceptions,
    goto_page,
    open_url,
    running_app,
    sidebar_dataset,
    sidebar_tokenizers,
    wait_idle,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # a study run (~1 min), a streamlit server and a browser
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]

PAGE_ORDER = ["explorer", "statistics", "errors", "languages", "shredded", "morph"]


@pytest.fixture(scope="module")
def demo_app(demo_results, tmp_path_factory):
    with running_app(demo_results, tmp_path_factory.mktemp("demo_app")) as url:
        yield url


@pytest.fixture(scope="module")
def empty_app(tmp_path_factory):
    """The app started on a results folder that does not exist (yet), as on a fresh clone before `make demo`."""
    log_dir = tmp_path_factory.mktemp("empty_app")
    with running_app(log_dir / "results" / "demo", log_dir) as url:
        yield url


def _uploader(page, label: str):
    return page.get_by_test_id("stFileUploader").filter(has_text=label).locator('input[type="file"]')


def _open_inputs(page) -> None:
    exp = page.get_by_test_id("stSidebar").get_by_test_id("stExpander")
    if not exp.locator("details").get_attribute("open") is not None:
        exp.locator("summary").click()
        page.wait_for_timeout(200)


def test_a_link_to_any_page_shows_the_apps_navigation(page, empty_app):
    """Opening /statistics etc. directly runs app.py's navigation, not a page script alone (as a ``pages/``
    folder of page scripts made Streamlit do: its own sidebar of file names)."""
    for name in PAGE_ORDER:
        open_url(page, f"{empty_app}/{PAGES[name]}")
        nav = page.get_by_test_id("stSidebarNav").locator("a").all_inner_texts()
        assert [t.split("\n")[-1].strip() for t in nav] == [NAV_LABELS[p] for p in PAGE_ORDER], (name, nav)
        assert exceptions(page) == [], name


def test_empty_start_every_page_explains_what_is_missing(page, empty_app):
    open_url(page, empty_app)
    for name in PAGE_ORDER:
        goto_page(page, name)
        assert exceptions(page) == [], name
        assert alerts(page, "error") == [], name
        assert any("does not exist" in t for t in alerts(page, "info")), name
    assert page.get_by_test_id("stAppDeployButton").count() == 0


def test_demo_results_every_page_opens(page, demo_app, demo_results):
    open_url(page, demo_app)
    assert sidebar_tokenizers(page) == ["sp-unigram-500", "sp-unigram-1k"]
    for name in PAGE_ORDER:
        goto_page(page, name)
        assert exceptions(page) == [], name
        if name != "languages":  # the parallel text lives at the data location, which may be absent
            assert alerts(page, "error") == [], (name, alerts(page, "error"))
    goto_page(page, "errors")
    # the demo's model was evaluated on its max_eval subset: usable, and said so
    assert any("cover the first 80 of" in t and "sentences only" in t for t in alerts(page, "info")), alerts(
        page, "info"
    )
    # the odds ratios are fitted beside the page (services/background.py): their table replaces a placeholder
    page.get_by_test_id("stMain").get_by_text("Logistic regression of", exact=False).wait_for(timeout=180_000)
    wait_idle(page)
    assert exceptions(page) == [] and alerts(page, "error") == []
    assert not any("Fitting the logistic regressions" in t for t in alerts(page, "info"))
    assert page.get_by_test_id("stDataFrame").count() >= 3
    assert page.locator('[data-testid="stVegaLiteChart"]').count() >= 1
    assert page.get_by_test_id("stAppDeployButton").count() == 0
    # a CSV is written when its button is clicked (components/downloads.py): one row per tokenizer and word set
    # (the crossed view's, folded until opened)
    page.get_by_test_id("stMain").get_by_test_id("stExpander").filter(has_text="Crossed:").locator("summary").click()
    wait_idle(page)
    button = page.get_by_test_id("stDownloadButton").filter(has_text="Download correlations (CSV)")
    with page.expect_download() as download:
        button.locator("button").click()
    assert download.value.suggested_filename == "correlation.csv"
    lines = open(download.value.path(), encoding="utf-8").read().splitlines()
    assert lines[0].startswith("tokenizer,model,words,pearson_r") and len(lines) == 1 + 2 * 2, lines


def _download(page, label: str) -> tuple[str, list[dict]]:
    """Click the download button ``label``; the file's suggested name and its rows."""
    button = page.get_by_test_id("stDownloadButton").filter(has_text=label)
    with page.expect_download() as download:
        button.locator("button").click()
    with open(download.value.path(), encoding="utf-8", newline="") as f:
        return download.value.suggested_filename, list(csv.DictReader(f))


def test_errors_page_pairs_each_model_with_its_own_tokenizer(page, demo_app, demo_results):
    """The Errors page on the study's results: each model with the tokenizer it was trained with (r as the study
    itself computed it) comes first; one model's errors under the other tokenizers are behind a folded "Crossed"
    view, which says so."""
    # the study's own r: each fine-tuned model's errors against the tokenizer it was pre-trained with
    study = {
        row["tokenizer"]: row["all"]["r"] for row in json.loads((demo_results / "tables/correlation.json").read_text())
    }
    assert sorted(study) == ["sp-unigram-1k", "sp-unigram-500"]
    open_url(page, demo_app)
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


def test_upload_tokenizer_pick_sentence_and_switch_every_page(page, demo_app, demo_results, tmp_path):
    open_url(page, demo_app)
    _open_inputs(page)
    model = tmp_path / "spiece.model"
    model.write_bytes((demo_results / "tokenizers" / "sp-unigram-500" / "spiece.model").read_bytes())
    _uploader(page, "or upload a tokenizer").set_input_files(str(model))
    wait_idle(page)
    # named by its file and vocabulary size; the message stays visible (the expander does not collapse)
    assert any("tokenizer 'spiece-500' loaded" in t for t in alerts(page, "success")), alerts(page, "success")
    want = ["sp-unigram-500", "sp-unigram-1k", "spiece-500"]
    assert sidebar_tokenizers(page) == want
    page.get_by_test_id("stRadio").get_by_text("Pick a dataset sentence").click()
    wait_idle(page)
    assert exceptions(page) == []
    assert page.locator("table.ts-explorer tbody tr").count() > 0
    for name in ["statistics", "explorer", "errors", "explorer", "languages", "errors", "statistics", "explorer"]:
        goto_page(page, name)
        assert exceptions(page) == [], name
        assert sidebar_tokenizers(page) == want, name
        assert sidebar_dataset(page) == "conll2003:test", name
    # back on the explorer: still the dataset sentence, with each selected tokenizer's strip
    assert page.locator(".ts-strip").count() == 3
    assert (
        "tok=sp-unigram-500%2Csp-unigram-1k%2Cspiece-500" in page.url
        or "tok=sp-unigram-500,sp-unigram-1k,spiece-500" in page.url
    )


def _upload_conll(page, url: str, path, text: str) -> None:
    """Open the app, write ``text`` to ``path`` and upload it as a CoNLL file in the sidebar's inputs."""
    open_url(page, url)
    _open_inputs(page)
    path.write_text(text, encoding="utf-8")
    _uploader(page, "or upload a CoNLL file").set_input_files(str(path))
    wait_idle(page)


def test_bad_conll_upload_names_the_users_file(page, demo_app, tmp_path):
    _upload_conll(page, demo_app, tmp_path / "my_corpus.conll", "EU B-ORG\nrejects O\n\nGerman FOO-MISC\n")
    errors = alerts(page, "error")
    assert any("my_corpus.conll" in e for e in errors), errors
    assert not any("data.conll" in e or "tokstudy_app_uploads" in e for e in errors), errors
    assert exceptions(page) == []


def test_lenient_option_reads_a_conll2002_style_file(page, demo_app, tmp_path):
    # IOB2 with an I- tag after O, as esp.testb has at line 9291, and a line of three fields among lines of
    # two, as CoNLL-2002 Dutch has 112 (word and POS fused the other way round)
    text = "La B-LOC\nCoruña I-LOC\n, O\n\nEl O\nAbogado I-MISC\nGeneral I-MISC\nde Fpa O\n"
    _upload_conll(page, demo_app, tmp_path / "esp_style.conll", text)
    assert any("esp_style.conll" in e and "lenient" in e for e in alerts(page, "error")), alerts(page, "error")
    page.get_by_text("Repair invalid tag sequences (lenient)").click()
    wait_idle(page)
    success = alerts(page, "success")
    assert any("1 invalid tag(s) repaired; 1 line(s) with another field count skipped" in t for t in success), success
    assert sidebar_dataset(page) == "esp_style:all"
    assert exceptions(page) == []
