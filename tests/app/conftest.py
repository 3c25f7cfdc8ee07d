"""Fixtures for the app tests: small real SentencePiece tokenizers and a results directory.

Three unigram vocabularies (ratio 1:2:4, like the study's 32k/64k/128k) are trained once
per session on CoNLL-2003 training sentences from the shared data; a results directory
holds them under ``tokenizers/`` plus a predictions file for CoNLL-2003 test whose
errors are made (deterministically) more likely on words the smallest vocabulary splits
into many pieces, so the Errors page has something to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.built_once import built_once
from tests.conftest import corpus_path

APP_DIR = Path(__file__).resolve().parents[2] / "analysis_app"
VOCAB_SIZES = (600, 1200, 2400)
MODEL_NAME = "albert-spm-600"


def _train(sentences: list[str], vocab_size: int, out: Path) -> Path:
    from tests.fixtures_sentencepiece import train_unigram

    out.mkdir(parents=True, exist_ok=True)
    return train_unigram(sentences, out / "spiece", vocab_size, albert=True, character_coverage=1.0, num_threads=1)


@pytest.fixture(scope="session")
def conll_dir() -> Path:
    return corpus_path("conll2003")


@pytest.fixture(scope="session")
def conll_test(conll_dir):
    from tokstudy.data.registry import load_dataset

    return load_dataset("conll2003", "test")


@pytest.fixture(scope="session")
def results_dir(tmp_path_factory, conll_dir, conll_test) -> Path:
    """``results/`` with three tokenizers and one model's predictions on CoNLL-2003 test."""
    from tests.app.synthetic import write_synthetic_predictions
    from tokstudy.data.conll import read_conll
    from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter

    def build(root: Path) -> Path:
        train = read_conll(conll_dir / "eng.train.gz", name="conll2003", language="en", split="train")
        sentences = [" ".join(s.words) for s in train.sentences[:6000]]
        models = [_train(sentences, v, root / "tokenizers" / f"spm-{v}") for v in VOCAB_SIZES]
        write_synthetic_predictions(root, MODEL_NAME, conll_test, SentencePieceSegmenter(models[0]))
        return root

    return built_once(tmp_path_factory, "app-results", build)  # once for the run, shared by the workers


@pytest.fixture(scope="session")
def paired_results(tmp_path_factory, results_dir, conll_test) -> Path:
    """``results/`` laid out as the study writes it: the three tokenizers, one model per tokenizer whose
    folder carries a copy of its vocabulary (``pretrain/<tok>/run/final_model/``, as the exporter copies
    it), and each model's predictions on CoNLL-2003 test (``predictions/<tok>/``, header ``model=`` that
    folder) with errors made more likely on the words its own tokenizer splits into many pieces."""
    import shutil

    from tests.app.synthetic import write_synthetic_predictions
    from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter

    root = tmp_path_factory.mktemp("study") / "results"
    shutil.copytree(results_dir / "tokenizers", root / "tokenizers")
    for v in VOCAB_SIZES:
        name = f"spm-{v}"
        model_dir = root / "pretrain" / name / "run" / "final_model"
        model_dir.mkdir(parents=True)
        shutil.copy2(root / "tokenizers" / name / "spiece.model", model_dir / "spiece.model")
        (model_dir / "config.json").write_text("{}")
        segmenter = SentencePieceSegmenter(root / "tokenizers" / name / "spiece.model")
        write_synthetic_predictions(root, name, conll_test, segmenter, seed=v, model_path=str(model_dir))
    return root


@dataclass(frozen=True)
class PiecesResults:
    """A copy of ``results_dir`` whose model also has per-piece predictions, and those read as the explorer reads
    them (:func:`analysis_app.services.piece_labels.load_piece_labels`: each sentence's words by ``sent_id``)."""

    root: Path
    by_sentence: dict


@pytest.fixture(scope="session")
def pieces_results(tmp_path_factory, results_dir) -> PiecesResults:
    """``results_dir`` copied, with per-piece predictions of its model beside its word predictions (the
    explorer's strip of each piece's own label); read-only, built once for the run (writing and reading the
    3,453 sentences' pieces takes seconds)."""
    import shutil

    from analysis_app.services.piece_labels import load_piece_labels
    from tests.app.synthetic import write_synthetic_piece_predictions
    from tokstudy.tokenization.loading import load_tokenizer

    def build(folder: Path) -> PiecesResults:
        root = folder / "results"
        shutil.copytree(results_dir, root)  # the session's results stay as other tests expect them
        words_file = next((root / "predictions" / MODEL_NAME).glob("*.tsv"))
        written = write_synthetic_piece_predictions(words_file, load_tokenizer(root / "tokenizers" / "spm-600"))
        return PiecesResults(root, load_piece_labels(written))

    return built_once(tmp_path_factory, "app-pieces-results", build)


@pytest.fixture(scope="module")
def chromium():
    """A page of one chromium started for the module (starting chromium costs a second or two on 2 busy cores)."""
    from tests.app.browser import chromium_page

    with chromium_page() as p:
        yield p


@pytest.fixture
def page(chromium):
    """A page in a fresh browser session: a new context of the module's chromium (no cookies, storage or cache of
    another test), the first page's viewport and timeout, closed after the test."""
    from tests.app.browser import watch_runs

    context = chromium.context.browser.new_context(viewport=chromium.viewport_size)
    try:
        p = context.new_page()
        watch_runs(p)
        p.set_default_timeout(90_000)
        yield p
    finally:
        context.close()


@pytest.fixture(scope="session")
def demo_results(tmp_path_factory) -> Path:
    """A results folder written by the study's own pipeline on a config of the demo's shape
    (``tests/app/demo_study.yaml``: two tokenizers, a fine-tuned model evaluated on a ``max_eval``
    subset, tables, report): what `make demo` leaves for `make app`. Real corpora when the data
    location has them, else the study's synthetic sample, as `make demo` does (~1 min on 2 cores)."""
    from pretrain.study_backend import PretrainBackend
    from tokstudy.study.config import load_study_config
    from tokstudy.study.pipeline import run_study

    out = tmp_path_factory.mktemp("demo") / "results"
    config = load_study_config(Path(__file__).with_name("demo_study.yaml"), output_dir=str(out))
    return run_study(config, backend=PretrainBackend(), log=lambda m: None, progress=False).root


@pytest.fixture(autouse=True)
def no_prewarm(monkeypatch):
    """AppTest runs compute on their first visit (no background thread competing with them); the
    browser tests start the server as `make app` does, preparation included (``tests/app/browser.py``)."""
    monkeypatch.setenv("TOKSTUDY_APP_PREWARM", "0")


@pytest.fixture
def app_env(monkeypatch, results_dir, tmp_path):
    """Environment of an app started with ``--results <results_dir>``."""
    from tokstudy.datalocation import data_root

    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(results_dir))
    monkeypatch.setenv("TOKSTUDY_APP_ALLOW_DIRS", str(data_root()))
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path / "uploads"))
    return results_dir


def new_app(page: str | None = None, timeout: float = 60):
    """An AppTest of the real entry point, switched to ``page`` (e.g. ``"views/errors.py"``)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP_DIR / "app.py"), default_timeout=timeout)
    if page:
        at.switch_page(page)
    return at


def no_exceptions(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def run_page(page: str, timeout: float = 60):
    """Run the app, then switch to ``page`` and run it (what a click in the navigation does)."""
    at = new_app(timeout=timeout).run()
    no_exceptions(at)
    at.switch_page(page).run()
    return at


def settle(at, timeout: float = 180):
    """Wait for what the page computes beside it (``services/background.py``: the odds ratios), then
    rerun it, as its polling placeholder does in a browser; returns ``at``."""
    from analysis_app.services.background import work

    wait_for_jobs(work(), timeout)
    at.run()
    no_exceptions(at)
    return at


def wait_for_jobs(background, timeout: float | None = None) -> None:
    """Wait for every job ``background`` (a ``BackgroundWork``) was asked for, failed ones included (the page
    reports those). Only tests wait for all jobs at once, so the app has no method for it: this reads the jobs."""
    for job in list(background._jobs.values()):
        try:
            job.result(timeout)
        except Exception:  # the page's own call reports it
            pass


def new_background_work():
    """A fresh ``BackgroundWork`` installed as the process's (``background.work()``): no job started before
    answers for what comes next (as if the server had restarted; a test clears Streamlit's caches beside it).
    Jobs still running are waited for first, so that they cannot fill a cache the test is about to clear."""
    from analysis_app.services import background

    wait_for_jobs(background.work())
    background._WORK = background.BackgroundWork()
    return background._WORK
