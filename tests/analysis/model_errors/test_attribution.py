"""Attribution of errors to segmentation: a known effect is recovered, and every figure equals an
independent refit (statsmodels on a design built here, numpy residuals for the partial correlation)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tokstudy.analysis.model_errors.attribution import attribute_errors, frequency_bins
from tokstudy.analysis.model_errors.predictions import PredictedSentence, Predictions
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.types import Dataset, Sentence
from tokstudy.tokenization.base import Segmentation, Segmenter

TRUE_OR = 1.5


class TableSegmenter(Segmenter):
    """Splits each word into the number of pieces a lookup table says."""

    kind, vocab_size = "test", 1000

    def __init__(self, n_pieces: dict[str, int], name: str = "lookup"):
        self.n, self.name = n_pieces, name

    def segment(self, words):
        return Segmentation.from_lists([[f"{w}#{i}" for i in range(self.n[w])] for w in words])


def confounded_corpus(seed: int = 0, n_sentences: int = 3000):
    """Words whose training frequency drives both their pieces and their error probability.

    Error ~ Bernoulli(logistic(-2 + log(TRUE_OR) * extra pieces - 0.5 * log freq + 1.0 * inside)),
    pieces = 1 + Poisson(max(0, 3 - 0.6 * log freq)): rare words are split more and mislabelled more,
    so the unadjusted odds ratio overstates the effect of a piece.
    """
    rng = np.random.default_rng(seed)
    n_types = 4000
    freq = np.floor(np.exp(rng.uniform(0, 7, n_types))).astype(int) - 1  # 0 (unseen) .. ~1100
    logf = np.log(np.maximum(freq, 1))
    pieces = 1 + rng.poisson(np.maximum(0.2, 3 - 0.6 * logf))
    vocab = [f"w{i}" for i in range(n_types)]
    sents, preds = [], []
    for s in range(n_sentences):
        n = int(rng.integers(4, 12))
        ids = rng.integers(0, n_types, n)
        tags = []
        for k in range(n):
            if rng.random() < 0.2:
                tags.append(("I-" if tags and tags[-1] != "O" else "B-") + "PER")
            else:
                tags.append("O")
        inside = np.array([t != "O" for t in tags], float)
        eta = -2 + math.log(TRUE_OR) * (pieces[ids] - 1) - 0.5 * logf[ids] * (freq[ids] > 0) + 1.0 * inside
        wrong = rng.random(n) < 1 / (1 + np.exp(-eta))
        words = tuple(vocab[i] for i in ids)
        pred = tuple(("O" if t != "O" else "B-LOC") if e else t for t, e in zip(tags, wrong))
        sents.append(Sentence(words, tuple(tags), sent_id=s))
        preds.append(PredictedSentence(words, tuple(tags), pred, s))
    ds = Dataset(tuple(sents), name="synth", language="en", split="test")
    counts = {vocab[i]: int(freq[i]) for i in range(n_types) if freq[i] > 0}
    seg = TableSegmenter({vocab[i]: int(pieces[i]) for i in range(n_types)})
    return ds, Predictions(tuple(preds), {"model": "synthetic"}), seg, counts


@pytest.fixture(scope="module")
def synthetic():
    ds, preds, seg, counts = confounded_corpus()
    table = segmentation_table([ds], [seg], progress=False)
    return ds, preds, seg, counts, table, attribute_errors(table, preds, train=counts, train_label="synthetic train")


def test_recovers_the_true_odds_ratio_and_the_unadjusted_one_is_biased(synthetic):
    *_, res = synthetic
    assert res.adjusted.low < TRUE_OR < res.adjusted.high
    assert res.unadjusted.low > TRUE_OR * 1.15  # visibly biased upward by the frequency confounder
    assert res.adjusted.p_value < 1e-6
    assert set(res.covariates) >= {"entity_PER", "position_I", "log_train_freq", "seen_in_train", "length_chars"}
    assert res.frequency_source == "synthetic train" and res.note == ""


def _independent_design(ds, preds, seg, counts):
    """The design rebuilt word by word from the raw inputs, without tokstudy's table."""
    y, x, groups = [], [], []
    for s, p in zip(ds.sentences, preds.sentences):
        for k, (w, t, pr) in enumerate(zip(s.words, s.tags, p.pred)):
            n = seg.n[w]
            c = counts.get(w, 0)
            y.append(float(pr != t))
            x.append([n, float(t != "O"), float(t.startswith("I-")), math.log(c) if c else 0.0, float(c > 0), len(w)])
            groups.append(s.sent_id)
    return np.array(y), np.array(x), np.array(groups)


def test_equals_a_direct_statsmodels_fit_and_numpy_partial_correlation(synthetic):
    import statsmodels.api as sm

    ds, preds, seg, counts, table, res = synthetic
    y, x, g = _independent_design(ds, preds, seg, counts)
    cov = x[:, 1:]  # entity (only PER here), position I, log freq, seen, length
    fit = sm.Logit(y, sm.add_constant(np.column_stack([x[:, 0] - 1, cov]))).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": g}
    )
    lo, hi = np.exp(fit.conf_int(alpha=0.05)[1])
    assert res.adjusted.value == pytest.approx(math.exp(fit.params[1]), rel=1e-7)
    assert (res.adjusted.low, res.adjusted.high) == (pytest.approx(lo, rel=1e-6), pytest.approx(hi, rel=1e-6))
    assert res.adjusted.p_value == pytest.approx(fit.pvalues[1], rel=1e-5)
    un = sm.Logit(y, sm.add_constant(x[:, :1])).fit(disp=0, cov_type="cluster", cov_kwds={"groups": g})
    assert res.unadjusted.value == pytest.approx(math.exp(un.params[1]), rel=1e-7)
    assert res.unadjusted.low == pytest.approx(math.exp(un.conf_int(alpha=0.05)[1][0]), rel=1e-6)
    # categorical contrast: 2, 3, 4+ pieces against 1
    lv = np.clip(x[:, 0], 1, 4)
    dummies = np.column_stack([(lv == k).astype(float) for k in (2, 3, 4)])
    cat = sm.Logit(y, sm.add_constant(np.column_stack([dummies, cov]))).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": g}
    )
    for j, level in enumerate(("2", "3", "4+")):
        assert res.by_pieces[level].value == pytest.approx(math.exp(cat.params[1 + j]), rel=1e-6)
    # partial correlation: residual-on-residual Pearson
    z = np.column_stack([np.ones(len(y)), cov])
    rx = x[:, 0] - z @ np.linalg.lstsq(z, x[:, 0], rcond=None)[0]
    ry = y - z @ np.linalg.lstsq(z, y, rcond=None)[0]
    assert res.partial_r == pytest.approx(np.corrcoef(rx, ry)[0, 1], abs=1e-10)
    assert res.n_words == len(y) and res.n_errors == int(y.sum()) and res.n_sentences == len(set(g.tolist()))


def test_frequency_bins_count_by_hand():
    pieces = np.array([1, 2, 5, 1, 3, 4])
    err = np.array([1, 0, 1, 0, 1, 1])
    count = np.array([0, 0, 5, 12, 150, 150])
    cells = {(c.frequency, c.pieces): (c.n, c.n_errors) for c in frequency_bins(pieces, err, count) if c.n}
    assert cells == {
        ("unseen", "1"): (1, 1),
        ("unseen", "2"): (1, 0),
        ("1-9", "4+"): (1, 1),
        ("10-99", "1"): (1, 0),
        ("100+", "3"): (1, 1),
        ("100+", "4+"): (1, 1),
    }


def test_without_training_split_frequency_is_left_out(synthetic):
    ds, preds, seg, counts, table, _ = synthetic
    res = attribute_errors(table, preds)
    assert "log_train_freq" not in res.covariates and res.frequency_source is None
    assert {c.frequency for c in res.by_frequency} == {"all"}


def test_a_failed_fit_gives_nan_and_a_note():
    words = tuple(f"w{i}" for i in range(8))
    sents = [Sentence(words, ("O",) * 8, sent_id=i) for i in range(5)]
    # every word right: the response is constant, so no odds ratio exists
    preds = Predictions(tuple(PredictedSentence(words, ("O",) * 8, ("O",) * 8, i) for i in range(5)))
    seg = TableSegmenter({w: 1 + i % 3 for i, w in enumerate(words)})
    table = segmentation_table([Dataset(tuple(sents), "tiny", "en", "test")], [seg], progress=False)
    res = attribute_errors(table, preds)
    assert math.isnan(res.adjusted.value) and res.note


def test_real_conll2003_runs_and_every_figure_is_finite(tmp_path):
    """On CoNLL-2003 test, with a small SentencePiece model trained here on the training split and
    predictions from a deterministic rule (no fine-tuned model is at hand in the tests): errors on a
    hashed share of words that grows with length and inside entities."""
    import json

    from tests.conftest import corpus_path
    from tests.fixtures_predictions import write_rule_predictions
    from tests.fixtures_sentencepiece import train_unigram
    from tokstudy.cli import main
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    train, test = load_dataset("conll2003", "train"), load_dataset("conll2003", "test")
    model = train_unigram((" ".join(s.words) for s in train.sentences), tmp_path / "sp1000", 1000, num_threads=1)
    specs = ["-t", f"sp1000={model}"]
    preds = write_rule_predictions(tmp_path / "preds.tsv", test)
    js = tmp_path / "a.json"
    assert (
        main(
            [
                "attribute",
                "-d",
                "conll2003:test",
                "--train-dataset",
                "conll2003:train",
                *specs,
                "-p",
                str(preds),
                "--json",
                str(js),
                "--csv",
                str(tmp_path / "a.csv"),
                "--figure",
                str(tmp_path / "fig"),
                "--no-progress",
            ]
        )
        == 0
    )
    data = json.loads(js.read_text())
    assert len(data["attribution"]) == 1 and (tmp_path / "fig.png").stat().st_size > 0
    for row in data["attribution"]:
        assert row["n_words"] == 46435 and row["note"] == ""
        numbers = [v for k, v in row.items() if k.startswith(("or_", "p_", "partial_"))]
        assert numbers and all(isinstance(v, float) and math.isfinite(v) for v in numbers), row
        assert "log_train_freq" in row["covariates"]
    assert all(c["error_rate"] is None or math.isfinite(c["error_rate"]) for c in data["by_frequency"])


def test_help_documents_the_model_and_its_covariates(capsys):
    from tokstudy.cli import main

    with pytest.raises(SystemExit):
        main(["attribute", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for key in (
        "logistic regression",
        "clustered by sentence",
        "extra pieces",
        "log_train_freq",
        "seen_in_train",
        "length_chars",
        "position_I",
        "entity type",
        "lang_<L>",
        "--train-dataset",
        "--json",
        "--csv",
        "--figure",
        "partial correlation",
        "frequency bins",
    ):
        assert key in text, key


def test_rank_shortcut_only_when_statsmodels_would_find_full_rank():
    from statsmodels.tools.tools import matrix_rank

    from tokstudy.analysis.model_errors.logit import full_rank as _full_rank

    rng = np.random.default_rng(1)
    x = np.column_stack([np.ones(500), rng.poisson(2, 500), rng.random((500, 4))])
    assert _full_rank(x) and matrix_rank(x, method="qr") == x.shape[1]
    dup = np.column_stack([x, x[:, 2]])
    assert not _full_rank(dup) and matrix_rank(dup, method="qr") < dup.shape[1]
    near = np.column_stack([x, x[:, 2] + 1e-9 * rng.random(500)])
    assert not _full_rank(near)  # statsmodels then checks the rank itself
    assert not _full_rank(x[:3])  # fewer rows than columns


def test_fits_equal_statsmodels_defaults_on_the_same_design_to_1e12(synthetic):
    """One BLAS thread, the skipped rank check and the warm starts change no figure beyond rounding."""
    from statsmodels.discrete.discrete_model import Logit

    from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
    from tokstudy.analysis.model_errors.attribution import _level, design

    ds, preds, seg, counts, table, res = synthetic
    d = design(table, align_predictions(table, preds), None, counts)

    def plain(x):
        fit = Logit(d.error, np.column_stack([np.ones(len(d.error)), x])).fit(
            disp=0, method="newton", cov_type="cluster", cov_kwds={"groups": d.sentence}
        )
        return np.exp(fit.params[1:4]), np.exp(fit.conf_int(alpha=0.05)[1:4]), fit.pvalues[1:4]

    def same(odds, value, ci, p):
        assert odds.value == pytest.approx(value, rel=1e-12)
        assert (odds.low, odds.high) == (pytest.approx(ci[0], rel=1e-12), pytest.approx(ci[1], rel=1e-12))
        assert odds.p_value == pytest.approx(p, rel=1e-9)  # a p-value far in the tail amplifies rounding

    v, ci, p = plain(np.column_stack([d.pieces - 1, d.covariates]))
    same(res.adjusted, v[0], ci[0], p[0])
    v, ci, p = plain((d.pieces - 1)[:, None])
    same(res.unadjusted, v[0], ci[0], p[0])
    lv = _level(d.pieces)
    v, ci, p = plain(np.column_stack([(lv == k).astype(float) for k in (1, 2, 3)] + [d.covariates]))
    for j, level in enumerate(("2", "3", "4+")):
        same(res.by_pieces[level], v[j], ci[j], p[j])


def test_fits_run_with_every_blas_library_on_one_thread():
    from threadpoolctl import threadpool_info

    from tokstudy.analysis.model_errors.logit import one_blas_thread as _one_blas_thread

    with _one_blas_thread():
        blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
        assert blas and all(i["num_threads"] == 1 for i in blas)


def test_a_fit_that_fails_from_the_warm_start_is_tried_from_statsmodels_start(synthetic, monkeypatch):
    """Newton's method has no line search: from the intercept-only start it can end on a singular Hessian
    where statsmodels' own start converges (a cpu study's CoNLL-2003 predictions did). The fit is then
    tried again, and gives what the plain statsmodels fit gives."""
    from statsmodels.discrete.discrete_model import Logit

    from tokstudy.analysis.model_errors import logit
    from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
    from tokstudy.analysis.model_errors.attribution import design

    ds, preds, seg, counts, table, res = synthetic
    d = design(table, align_predictions(table, preds), None, counts)
    x = np.column_stack([d.pieces - 1, d.covariates])
    fit = Logit.fit
    starts = []

    def singular_from_a_warm_start(self, start_params=None, **kw):
        starts.append(start_params)
        if start_params is not None:
            raise np.linalg.LinAlgError("Singular matrix")
        return fit(self, start_params=start_params, **kw)

    monkeypatch.setattr(Logit, "fit", singular_from_a_warm_start)
    (params, ci, p), reason = logit.fit_logit(d.error, x, d.sentence, 0.95)
    assert reason == "" and len(starts) == 2 and starts[0] is not None and starts[1] is None
    monkeypatch.setattr(Logit, "fit", fit)
    plain = fit(
        Logit(d.error, np.column_stack([np.ones(len(d.error)), x])),
        disp=0,
        method="newton",
        cov_type="cluster",
        cov_kwds={"groups": d.sentence},
    )
    np.testing.assert_allclose(params, plain.params, rtol=1e-10)
    np.testing.assert_allclose(ci, plain.conf_int(alpha=0.05), rtol=1e-10)


def test_a_fit_that_fails_from_both_starts_says_why(synthetic, monkeypatch):
    from statsmodels.discrete.discrete_model import Logit

    from tokstudy.analysis.model_errors import logit

    def always_singular(self, **kw):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(Logit, "fit", always_singular)
    y = np.array([0.0, 1.0, 0.0, 1.0])
    assert logit.fit_logit(y, np.array([[1.0], [2.0], [3.0], [5.0]]), np.arange(4), 0.95) == (
        None,
        "LinAlgError: Singular matrix",
    )
