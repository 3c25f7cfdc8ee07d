"""The Errors page pairs each model with the tokenizer it was trained with; the crossed view is labelled.

On a results folder laid out as the study writes it (``paired_results``: one model per tokenizer, its
folder carrying a copy of its vocabulary), the paired table's r equals ``scipy.stats.pearsonr`` of each
model's errors against the pieces of its own tokenizer; one model's errors under the other tokenizers
are only in the folded "Crossed" view, each row marked. Where the pairing is not recorded the page says so.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.app.conftest import VOCAB_SIZES, no_exceptions, run_page

MODELS = [f"spm-{v}" for v in VOCAB_SIZES]


def _errors(path, dataset) -> np.ndarray:
    """1.0 for every word of ``dataset`` the predictions file at ``path`` mislabels (read independently)."""
    from tokstudy.analysis.model_errors.predictions import read_predictions

    preds = {p.sent_id: p for p in read_predictions(path).sentences}
    return np.array([p != g for s in dataset for p, g in zip(preds[s.sent_id].pred, s.tags)], dtype=float)


def _pieces(root, tokenizer: str, dataset) -> list[int]:
    from tokstudy.tokenization.loading import load_tokenizer

    return load_tokenizer(root / "tokenizers" / tokenizer).segment([w for s in dataset for w in s.words]).counts


@pytest.fixture
def study_env(monkeypatch, paired_results, tmp_path):
    from tokstudy.datalocation import data_root

    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(paired_results))
    monkeypatch.setenv("TOKSTUDY_APP_ALLOW_DIRS", str(data_root()))
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path / "uploads"))
    return paired_results


def test_paired_view_one_row_per_model_with_its_own_tokenizer(study_env, conll_test):
    from scipy.stats import pearsonr

    at = run_page("views/errors.py")
    no_exceptions(at)
    paired = at.dataframe[0].value
    assert list(paired.columns[:4]) == ["model", "error rate", "own tokenizer", "word set"]
    everything = paired[paired["word set"] == "all words"]
    assert list(everything.model) == MODELS  # in the order of their tokenizers, not of the folders' names
    for model in MODELS:
        row = everything[everything.model == model].iloc[0]
        assert row["own tokenizer"] == model
        err = _errors(study_env / "predictions" / model / "conll2003_test.tsv", conll_test)
        r, _ = pearsonr(_pieces(study_env, model, conll_test), err)
        assert row["Pearson r"] == pytest.approx(r, abs=1e-9)
        assert row["error rate"] == pytest.approx(err.mean())
    # the 2400 row is model spm-2400's r, not model spm-600's errors under the 2400 vocabulary
    err_600 = _errors(study_env / "predictions" / "spm-600" / "conll2003_test.tsv", conll_test)
    crossed_r, _ = pearsonr(_pieces(study_env, "spm-2400", conll_test), err_600)
    assert everything[everything.model == "spm-2400"]["Pearson r"].iloc[0] != pytest.approx(crossed_r, abs=1e-6)
    assert not at.info or not any("not known" in i.value for i in at.info)


def test_crossed_view_is_folded_labelled_and_marks_each_row(study_env, conll_test):
    from scipy.stats import pearsonr

    at = run_page("views/errors.py")
    at.selectbox(key="ts_er_model").set_value("spm-600/conll2003_test").run()
    no_exceptions(at)
    (crossed_box,) = [e for e in at.expander if e.label.startswith("Crossed")]
    assert crossed_box.label == "Crossed: spm-600's errors segmented by other tokenizers than its own (spm-600)"
    assert not crossed_box.proto.expanded  # on demand: folded until opened
    crossed = crossed_box.dataframe[0].value
    everything = crossed[crossed["word set"] == "all words"]
    assert list(everything.tokenizer) == MODELS
    assert list(everything.pairing) == ["paired", "crossed", "crossed"]
    err_600 = _errors(study_env / "predictions" / "spm-600" / "conll2003_test.tsv", conll_test)
    for name in MODELS:
        r, _ = pearsonr(_pieces(study_env, name, conll_test), err_600)
        assert everything[everything.tokenizer == name]["Pearson r"].iloc[0] == pytest.approx(r, abs=1e-9)
    # the other sections on one model's errors name its own tokenizer, and show its pieces first
    assert any("spm-600 is the one it was trained with, any other is crossed" in c.value for c in at.caption)
    assert at.selectbox(key="ts_er_tokenizer").value == "spm-600"


def test_unknown_pairing_is_said_not_guessed(app_env):
    """The app tests' results folder holds predictions whose header names no model folder (``model=albert-spm-600``):
    no paired row, a sentence saying why, and the crossed view open, each row marked ``pairing unknown``."""
    at = run_page("views/errors.py")
    no_exceptions(at)
    notes = [i.value for i in at.info if "albert-spm-600" in i.value]
    assert notes == [
        "Which tokenizer albert-spm-600 was trained with is not known: the model its predictions name "
        "(albert-spm-600) is not a folder holding a vocabulary here. Its errors are shown only crossed, "
        "against each selected tokenizer, below."
    ]
    assert not any("model" in d.value.columns for d in at.dataframe)  # no paired table
    (crossed_box,) = [e for e in at.expander if e.label.startswith("Crossed")]
    assert crossed_box.label == (
        "Crossed: albert-spm-600's errors segmented by each selected tokenizer (its own one is not known)"
    )
    assert crossed_box.proto.expanded
    assert set(crossed_box.dataframe[0].value.pairing) == {"pairing unknown"}


def test_a_models_row_is_paired_even_when_its_tokenizer_is_not_selected(study_env, conll_test):
    """Only spm-600 and spm-1200 selected in the sidebar: model spm-2400's row is still under spm-2400."""
    from scipy.stats import pearsonr

    at = run_page("views/errors.py")
    at.multiselect(key="ts_w_tokenizers@errors").set_value(["spm-600", "spm-1200"]).run()
    no_exceptions(at)
    paired = at.dataframe[0].value
    row = paired[(paired.model == "spm-2400") & (paired["word set"] == "all words")].iloc[0]
    err = _errors(study_env / "predictions" / "spm-2400" / "conll2003_test.tsv", conll_test)
    r, _ = pearsonr(_pieces(study_env, "spm-2400", conll_test), err)
    assert row["own tokenizer"] == "spm-2400" and row["Pearson r"] == pytest.approx(r, abs=1e-9)


def test_the_server_prepares_every_models_paired_row(study_env, monkeypatch):
    """The server's preparation (``services/background.py``) computes the paired rows a first visit asks for:
    with every computation then made to fail, the page draws the same tables."""
    import streamlit as st

    from analysis_app.components import cache
    from analysis_app.services import defaults
    from analysis_app.services.background import plan, work
    from analysis_app.services.settings import parse_settings
    from analysis_app.services.sources import initial_sources, predictions_for
    from tests.app.conftest import new_background_work, settle
    from tests.app.test_prewarm import _forbid

    # what the page draws when it computes everything itself: the caches are not cleared first, since the values
    # this module's earlier page runs left there (their odds ratios included, fitted by their jobs) are what the
    # page computed for the same arguments; run alone, the page computes them here
    before = settle(run_page("views/errors.py", timeout=180))
    new_background_work()
    st.cache_data.clear()
    st.cache_resource.clear()
    srcs = initial_sources(study_env)
    toks = tuple(srcs.tokenizer(n) for n in defaults.tokenizer_names([t.name for t in srcs.tokenizers]))
    ds = srcs.datasets[0]
    preds = tuple(predictions_for(ds, srcs.predictions))
    steps = plan(parse_settings([]), toks, ds, preds, cache, submit=work().submit, loaded=srcs.tokenizers)
    work().run_queue([s for s in steps if s[0] == "errors"])
    _forbid(monkeypatch)
    at = run_page("views/errors.py", timeout=60)
    no_exceptions(at)
    assert len(at.dataframe) == len(before.dataframe) >= 4  # paired, crossed, mislabelled words, odds ratios
    for got, want in zip(at.dataframe, before.dataframe):
        assert got.value.equals(want.value)
    new_background_work()
    st.cache_data.clear()
    st.cache_resource.clear()
