"""The Errors page predicts the dataset with a model directory of one's own and pairs it with its tokenizer.

A tiny BERT token classifier saved with ``save_pretrained`` (``tests/fixtures_hf_models.py``) is chosen by
path on a 40-sentence CoNLL-2003 file: ``pretrain evaluate`` runs in a child process, and the paired row's r
equals ``scipy.stats.pearsonr`` of the model's errors (read from the file it wrote, against the gold file)
against the pieces the model's own tokenizer (``transformers.AutoTokenizer``) gives each word. A second choice
reads the cache and runs nothing; a folder that is not a model shows the command's error line, caching nothing.

The choice is also made in a real browser (Debian's chromium through Playwright's ``executable_path``, nothing
downloaded), on the app started as `make app` does: the prediction runs beside the page with a progress bar, and
the paired CSV then holds the model's row under its own tokenizer. That run is the module's one prediction of
the model (``pretrain evaluate`` imports torch and transformers: seconds): the AppTest's choices on the same
folders then read what the server's run left in the cache. Without chromium the AppTest runs it itself.
"""

from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.app.browser import CHROMIUM, alerts, chromium_page, exceptions, goto_page, open_url, running_app, wait_idle
from tests.app.conftest import new_app, no_exceptions, wait_for_jobs
from tests.conftest import corpus_path
from tests.fixtures_hf_models import hf_token_models  # noqa: F401  (session fixture: one model per family)

N_SENTENCES = 40


def _small_conll(out: Path) -> Path:
    """The first ``N_SENTENCES`` sentences of CoNLL-2003 test, as a CoNLL file (documents markers dropped)."""
    with gzip.open(corpus_path("conll2003") / "eng.testb.gz", "rt", encoding="utf-8") as f:
        blocks = [b for b in f.read().split("\n\n") if b.strip() and not b.startswith("-DOCSTART-")]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join(blocks[:N_SENTENCES]) + "\n\n", encoding="utf-8")
    return out


def _use_results(monkeypatch, results: Path, model_dir: Path) -> Path:
    """Point the app at ``results`` (its model cache ``../models``), allowed to read ``model_dir``'s folder."""
    from analysis_app.services import background

    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(results))
    monkeypatch.setenv("TOKSTUDY_APP_ALLOW_DIRS", str(model_dir.parent))
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(results.parent / "uploads"))
    monkeypatch.setenv("TOKSTUDY_APP_MODEL_CACHE", str(results.parent / "models"))
    wait_for_jobs(background.work())
    monkeypatch.setattr(background, "_WORK", background.BackgroundWork())  # no job of another test answers
    return results


@pytest.fixture
def own_env(monkeypatch, tmp_path, hf_token_models):  # noqa: F811
    """An app whose results folder holds only a small CoNLL file, allowed to read the fixtures' models; its
    model cache is the test's own (empty)."""
    results = tmp_path / "results"
    _small_conll(results / "data" / "small.conll")
    return _use_results(monkeypatch, results, hf_token_models["bert"].path)


@pytest.fixture(scope="module")
def shared_results(tmp_path_factory) -> Path:
    """A results folder holding only a small CoNLL file, its model cache beside it (``../models``, empty at
    first): the folders of the module's one prediction of the fixtures' BERT."""
    results = tmp_path_factory.mktemp("own_model") / "results"
    _small_conll(results / "data" / "small.conll")
    return results


@dataclass(frozen=True)
class BrowserChoice:
    """What the browser showed once the prediction of a model chosen on the Errors page had ended."""

    exceptions: list[str]
    errors: list[str]
    progress_bars: int
    #: the paired CSV's rows over all words
    rows: list[dict]


@pytest.fixture(scope="module")
def chosen_in_browser(shared_results, hf_token_models, tmp_path_factory) -> BrowserChoice:  # noqa: F811
    """The fixtures' BERT chosen by path on the Errors page in chromium, with the server's model cache empty:
    the server predicts it (the module's one ``pretrain evaluate``)."""
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    model = hf_token_models["bert"].path
    assert not (shared_results.parent / "models").exists()  # nothing predicted before: the click runs it
    env = {
        "TOKSTUDY_APP_ALLOW_DIRS": str(model.parent),
        "TOKSTUDY_APP_MODEL_CACHE": str(shared_results.parent / "models"),
    }
    with running_app(shared_results, tmp_path_factory.mktemp("own_model_app"), env=env) as url, chromium_page() as page:
        open_url(page, url)
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
        shown = (exceptions(page), alerts(page, "error"), main.get_by_test_id("stProgress").count())
        with page.expect_download() as download:
            button.locator("button").click()
        with open(download.value.path(), encoding="utf-8", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["words"] == "all words"]
    return BrowserChoice(*shown, rows)


def _choose(folder: Path):
    """The Errors page after choosing ``folder`` and waiting for its prediction."""
    from analysis_app.services.background import work

    at = new_app("views/errors.py", timeout=120).run()
    no_exceptions(at)
    at.text_input(key="ts_er_model_dir").set_value(str(folder)).run()
    at.button(key="ts_er_model_dir_btn").click().run()
    no_exceptions(at)
    wait_for_jobs(work(), 120)
    at.run()
    no_exceptions(at)
    return at


def _iob2(tags: list[str]) -> list[str]:
    """CoNLL-2003's IOB1 tags in IOB2, the scheme every reader normalises to: an entity opens with ``B-``."""
    out = []
    for k, tag in enumerate(tags):
        before = tags[k - 1][2:] if k and tags[k - 1] != "O" else None
        out.append("B-" + tag[2:] if tag.startswith("I-") and before != tag[2:] else tag)
    return out


def _errors_and_pieces(predictions: Path, gold: Path, model: Path) -> tuple[np.ndarray, list[int]]:
    """Each gold word's mislabelled flag and its number of pieces under the model's tokenizer, read here."""
    from transformers import AutoTokenizer

    sentences = [
        [line.split() for line in block.splitlines()]
        for block in gold.read_text(encoding="utf-8").split("\n\n")
        if block.strip()
    ]
    body = [ln for ln in predictions.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    predicted = [ln.split("\t") for ln in body if ln.strip()]
    gold_tags = [tag for s in sentences for tag in _iob2([row[-1] for row in s])]
    assert len(predicted) == len(gold_tags)
    errors = np.array([p[-1] != g for p, g in zip(predicted, gold_tags)], dtype=float)
    tok = AutoTokenizer.from_pretrained(model)
    pieces = [len(tok.tokenize(row[0])) for s in sentences for row in s]
    return errors, pieces


@pytest.mark.browser
def test_a_chosen_model_gets_its_paired_row(chosen_in_browser):
    assert chosen_in_browser.exceptions == [] and chosen_in_browser.errors == []
    assert chosen_in_browser.progress_bars == 0
    rows = chosen_in_browser.rows
    assert [(r["model"], r["tokenizer"]) for r in rows] == [("bert", "bert")]
    assert 0 < float(rows[0]["n"])


def test_a_chosen_model_is_predicted_paired_with_its_own_tokenizer_and_cached(
    shared_results,
    hf_token_models,  # noqa: F811
    monkeypatch,
    request,
):
    """Where chromium is installed, the prediction read here is the one the browser's choice made in the server
    (``chosen_in_browser``); else this test's first choice makes it."""
    from scipy.stats import pearsonr

    from analysis_app.services import model_runs

    model = hf_token_models["bert"].path
    if CHROMIUM.exists():
        request.getfixturevalue("chosen_in_browser")
    _use_results(monkeypatch, shared_results, model)
    at = _choose(model)
    assert not at.error, [e.value for e in at.error]
    paired = at.dataframe[0].value
    row = paired[(paired.model == "bert") & (paired["word set"] == "all words")].iloc[0]
    assert row["own tokenizer"] == "bert"
    runs = list((shared_results.parent / "models").iterdir())
    assert len(runs) == 1
    errors, pieces = _errors_and_pieces(runs[0] / "predictions.tsv", shared_results / "data" / "small.conll", model)
    assert row["error rate"] == pytest.approx(errors.mean())
    assert row["Pearson r"] == pytest.approx(pearsonr(pieces, errors)[0], abs=1e-9)
    assert (runs[0] / "pieces.tsv").is_file()

    # a second choice of the same model reads the cache: running it again fails the test
    def no_second_run(run, work):
        raise AssertionError("the model was run again")

    monkeypatch.setattr(model_runs, "_call", no_second_run)
    at = _choose(model)  # a new session: only the files on disk can answer
    assert not at.error, [e.value for e in at.error]
    assert "bert" in set(at.dataframe[0].value.model)


def test_a_folder_that_is_no_model_shows_the_command_error_and_caches_nothing(own_env, tmp_path, hf_token_models):  # noqa: F811
    folder = hf_token_models["bert"].path.parent / "not-a-model"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text("{}")
    at = _choose(folder)
    assert [e.value for e in at.error] == [
        f"pretrain evaluate: error: {folder}: config.json is there but no weights (*.safetensors or *.bin)"
    ]
    cache = own_env.parent / "models"
    assert not cache.exists() or not any(cache.iterdir())


def test_progress_is_read_from_the_bars_redrawings():
    from analysis_app.services import model_runs

    bar = b"predict:   0%|   | 0/3 [00:00<?]\rpredict:  33%|#  | 1/3 [00:01<00:02]\rdone\nlast"
    read, write = __import__("os").pipe()
    with open(write, "wb") as w:
        w.write(bar)
    with open(read, "rb") as r:
        lines = list(model_runs._drawings(r))
    assert [model_runs.parse_progress(ln) for ln in lines] == [(0, 3), (1, 3), None, None]
    assert lines[2:] == ["done", "last"]


def test_the_cache_key_follows_the_weights(tmp_path):
    from analysis_app.services import model_runs
    from analysis_app.services.sources import DatasetSource

    (tmp_path / "config.json").write_text("{}")
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"1")
    ds = DatasetSource.registry("conll2003", "test")
    first = model_runs.run_key(tmp_path, ds)
    assert model_runs.run_key(tmp_path, DatasetSource.registry("conll2003", "dev")) != first
    weights.write_bytes(b"12")
    assert model_runs.run_key(tmp_path, ds) != first


def test_the_services_examples_run():
    import doctest

    from analysis_app.services import model_runs

    result = doctest.testmod(model_runs)
    assert result.failed == 0 and result.attempted > 0, result


def test_a_running_prediction_shows_its_progress(own_env, hf_token_models, monkeypatch):  # noqa: F811
    import threading

    from analysis_app.services import model_runs
    from analysis_app.services.background import work

    release = threading.Event()

    def halfway(run, folder):
        model_runs.progress_of(run).update(1, 4)
        release.wait(60)
        raise model_runs.ModelRunError("pretrain evaluate: error: stopped by the test")

    monkeypatch.setattr(model_runs, "_call", halfway)
    at = new_app("views/errors.py", timeout=120).run()
    at.text_input(key="ts_er_model_dir").set_value(str(hf_token_models["bert"].path)).run()
    at.button(key="ts_er_model_dir_btn").click().run()
    no_exceptions(at)
    for _ in range(100):  # the job starts once the page run has ended
        if model_runs.progress_of(model_runs.plan(hf_token_models["bert"].path, _dataset())).fraction:
            break
        threading.Event().wait(0.1)
    at.run()
    bars = at.get("progress")
    assert len(bars) == 1 and "1 of 4 batches" in bars[0].proto.text
    release.set()
    wait_for_jobs(work(), 60)
    at.run()
    assert [e.value for e in at.error] == ["pretrain evaluate: error: stopped by the test"]
    assert not at.get("progress")


def test_a_path_outside_the_readable_folders_is_refused(own_env, tmp_path):
    at = new_app("views/errors.py").run()
    at.text_input(key="ts_er_model_dir").set_value(str(tmp_path)).run()
    at.button(key="ts_er_model_dir_btn").click().run()
    no_exceptions(at)
    assert len(at.error) == 1 and "outside the directories this app may read" in at.error[0].value
    assert not (tmp_path / "models").exists()


def _dataset():
    """The dataset the app selects first in ``own_env``: its results folder's CoNLL file."""
    from analysis_app.services.settings import parse_settings
    from analysis_app.services.sources import initial_sources

    return initial_sources(parse_settings().results).datasets[0]
