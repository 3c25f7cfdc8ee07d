"""The Errors page: correlation equals scipy on the same vectors; words link back to the explorer."""

from __future__ import annotations

import numpy as np
import pytest

from analysis_app.services.mislabels import format_p
from tests.app.conftest import MODEL_NAME, new_app, no_exceptions, run_page
from tokstudy.analysis.stats.estimates import BootstrapSettings


def _chart_data(at, field: str):
    """The rows the page's chart draws whose columns include ``field`` (the chart's own datasets)."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    for chart in at.get("vega_lite_chart"):
        blobs = [ds.data.data for ds in chart.proto.datasets] + [chart.proto.data.data]
        for blob in filter(None, blobs):
            frame = convert_arrow_bytes_to_pandas_df(blob)
            if field in frame.columns:
                return frame
    raise AssertionError(f"no chart draws {field!r}")


def test_correlation_and_error_rates_match_scipy(app_env, conll_test):
    from scipy.stats import pearsonr

    from tokstudy.tokenization.loading import load_tokenizer

    at = run_page("views/errors.py")
    no_exceptions(at)
    corr = at.dataframe[0].value
    preds = {}
    from tokstudy.analysis.model_errors.predictions import read_predictions

    for ps in read_predictions(app_env / "predictions" / MODEL_NAME / "conll2003_test.tsv").sentences:
        preds[ps.sent_id] = ps
    words = [w for s in conll_test for w in s.words]
    err = np.array([p != g for s in conll_test for p, g in zip(preds[s.sent_id].pred, s.tags)], dtype=float)
    for name in ("spm-600", "spm-1200", "spm-2400"):
        x = load_tokenizer(app_env / "tokenizers" / name).segment(words).counts
        r, p = pearsonr(x, err)
        row = corr[(corr.tokenizer == name) & (corr["word set"] == "all words")].iloc[0]
        assert row["Pearson r"] == pytest.approx(r, abs=1e-9)
        assert row["p"] == format_p(p)  # shown as the report shows it (2 digits), "< 1e-300" where it underflows
        low, high = (float(v) for v in row["95 % CI"].strip("[]").split(", "))
        assert low <= round(row["Pearson r"], 4) <= high
    # the synthetic model errs more on words the smallest vocabulary splits more
    assert corr[(corr.tokenizer == "spm-600") & (corr["word set"] == "all words")]["Pearson r"].iloc[0] > 0
    # named as a reader expects, not as the fields of the CSV (issue 24 item 10)
    assert list(corr.columns[:5]) == ["tokenizer", "word set", "Pearson r", "95 % CI", "p"]
    assert not {"pearson_r", "ci_low", "ci_high", "spearman_p", "p_value"} & set(corr.columns)
    curves = _chart_data(at, "error_rate")
    first = curves[curves.series == "spm-600 (all words)"]
    assert first.n.sum() == len(words) and first.errors.sum() == int(err.sum())
    worst = at.dataframe[1].value
    assert len(worst) == 50 and list(worst.n_pieces) == sorted(worst.n_pieces, reverse=True)
    assert (worst.gold != worst.predicted).all()
    links = at.get("page_link")
    assert links and "sentence" in links[0].proto.label


def test_correlations_find_the_entities_once_and_match_each_tokenizer_alone(app_env, monkeypatch):
    """The cached correlations of 3 tokenizers find the gold entities once (``entity_spans``: a loop over
    every sentence, the same for every tokenizer) and equal ``correlate_errors`` run per tokenizer alone."""
    import streamlit as st

    import tokstudy.analysis.model_errors.correlation as correlation_api
    from analysis_app.components import cache
    from analysis_app.services import defaults
    from analysis_app.services.sources import initial_sources, predictions_for

    st.cache_data.clear()
    srcs = initial_sources(str(app_env))
    toks = tuple(srcs.tokenizer(n) for n in defaults.tokenizer_names([t.name for t in srcs.tokenizers]))
    ds = srcs.datasets[0]
    pred = predictions_for(ds, srcs.predictions)[0]
    calls = []
    spans_of = correlation_api.entity_spans
    monkeypatch.setattr(correlation_api, "entity_spans", lambda *a: calls.append(1) or spans_of(*a))
    got = cache.correlation(ds, toks, pred, 40, 2)
    assert len(calls) == 1 and [r.tokenizer for r in got] == [t.name for t in toks]
    table, aligned = cache.table_for((ds,), toks), cache.aligned(ds, toks, pred)
    monkeypatch.setattr(correlation_api, "entity_spans", spans_of)
    assert got == [
        correlation_api.correlate_errors(table, aligned, t.name, bootstrap=BootstrapSettings(40, seed=2)) for t in toks
    ]
    st.cache_data.clear()


def test_word_link_opens_its_sentence_in_the_explorer(app_env, conll_test):
    at = run_page("views/errors.py")
    worst = at.dataframe[1].value.iloc[0]
    link = at.get("page_link")[0].proto
    assert link.page.endswith("explorer") or "explorer" in link.page or link.page == ""
    # what a click does: the explorer runs with the link's query parameters
    at2 = new_app()
    at2.query_params["dataset"] = "conll2003:test"
    at2.query_params["sent"] = str(int(worst.sent_id))
    at2.run()
    no_exceptions(at2)
    html = "\n".join(h.proto.body for h in at2.html)
    assert at2.radio(key="ts_ex_mode").value == "dataset"
    sentence = next(s for s in conll_test if s.sent_id == int(worst.sent_id))
    assert html.count("<tr") == 1 + len(sentence.words)
    assert f">{worst.word}</td>" in html


def test_bad_predictions_upload_shows_a_clear_error(app_env):
    at = run_page("views/errors.py")
    at.file_uploader(key="ts_in_pred_upload").set_value(("preds.tsv", b"EU\tB-ORG\n", "text/plain")).run()
    no_exceptions(at)
    assert any("not a predictions file" in e.value for e in at.error), [e.value for e in at.error]


def test_the_link_follows_the_word_picked(app_env):
    """One link under the table, to the sentence of the word picked in its selectbox (any of the table's words)."""
    from urllib.parse import parse_qs

    at = run_page("views/errors.py")
    worst = at.dataframe[1].value
    pick = at.selectbox(key="ts_er_link")
    assert len(pick.options) == len(worst)
    for k in (0, 7, len(worst) - 1):
        pick.set_value(k).run()
        no_exceptions(at)
        (link,) = at.get("page_link")
        row = worst.iloc[k]
        assert parse_qs(link.proto.query_string) == {"dataset": ["conll2003:test"], "sent": [str(int(row.sent_id))]}
        assert link.proto.label.startswith(f"{row.word}  ({row.n_pieces} pieces")
        pick = at.selectbox(key="ts_er_link")


def test_odds_ratios_follow_the_rest_of_the_page(app_env, monkeypatch):
    """The page is drawn before the logistic regressions are fitted (a placeholder meanwhile); the fits
    run once, beside the page, and the table then shows them."""
    import streamlit as st

    import tokstudy.analysis.model_errors.attribution as attribution_api
    from analysis_app.services.background import work
    from tests.app.conftest import new_background_work, settle

    new_background_work()  # a job an earlier test started must not answer for this one
    st.cache_data.clear()
    fits = []
    attribute = attribution_api.attribute_errors

    def counted(*a, **k):
        fits.append(a[2])
        return attribute(*a, **k)

    monkeypatch.setattr(attribution_api, "attribute_errors", counted)
    with work().page_run("errors"):  # fits wait until no page is drawn: hold them back during this run
        at = run_page("views/errors.py")
        no_exceptions(at)
        assert fits == []
    assert any("Fitting the logistic regressions" in i.value for i in at.info)
    assert not any("OR per extra piece (adjusted)" in d.value.columns for d in at.dataframe)
    assert len(at.dataframe) == 2  # correlations and mislabelled words are drawn already
    settle(at)
    odds = [d.value for d in at.dataframe if "OR per extra piece (adjusted)" in d.value.columns]
    assert len(odds) == 1 and set(odds[0].tokenizer) == {"spm-600", "spm-1200", "spm-2400"}
    assert sorted(fits) == ["spm-1200", "spm-2400", "spm-600"]  # each fitted once
    assert not any("Fitting the logistic regressions" in i.value for i in at.info)
    settle(at)
    assert len(fits) == 3
    new_background_work()
    st.cache_data.clear()


def test_an_undefined_r_is_explained_in_words(app_env, conll_test, tmp_path, monkeypatch):
    """A model that mislabels every NE word leaves r undefined over NE words: the page says why, in words,
    instead of showing None (issue 24 item 8)."""
    import shutil

    from tokstudy.analysis.model_errors.predictions import write_predictions

    results = tmp_path / "results"
    shutil.copytree(app_env, results, ignore=shutil.ignore_patterns("predictions"))
    sentences = [(s.words, s.tags, ["O" if g != "O" else g for g in s.tags]) for s in conll_test]
    write_predictions(
        results / "predictions" / "ne-blind" / "conll2003_test.tsv",
        sentences,
        metadata={"model": "ne-blind", "dataset": "conll2003", "split": "test"},
        sent_ids=[s.sent_id for s in conll_test],
    )
    monkeypatch.setenv("TOKSTUDY_APP_RESULTS", str(results))
    at = run_page("views/errors.py")
    corr = at.dataframe[0].value
    ne = corr[corr["word set"] == "NE words"]
    assert len(ne) == 3 and ne["Pearson r"].isna().all() and (ne["95 % CI"] == "–").all()
    reason = "every word of this set is mislabelled, so errors do not vary and r is undefined"
    assert (ne["why r is undefined"] == reason).all()
    assert (corr[corr["word set"] == "all words"]["why r is undefined"] == "").all()
    captions = [c.value for c in at.caption]
    assert f"r is undefined for spm-600 (NE words): {reason}." in captions
