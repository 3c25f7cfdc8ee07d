"""Error correlation against scipy on the same vectors; alignment errors that name the sentence."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.correlation import correlate_errors
from tokstudy.analysis.model_errors.predictions import read_predictions, write_predictions
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table
from tokstudy.errors import AlignmentError


def fake_predictions(ds, seed=0):
    """Predictions that err more often on long words (so r > 0)."""
    rng = random.Random(seed)
    out = []
    for s in ds:
        pred = [
            t if rng.random() > min(0.9, len(w) / 14) else rng.choice(["O", "B-PER", "I-LOC"])
            for w, t in zip(s.words, s.tags)
        ]
        out.append((s.words, s.tags, pred))
    return out


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    ds = random_dataset(21, 500)
    t = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    path = tmp_path_factory.mktemp("pred") / "p.tsv"
    sents = fake_predictions(ds)
    write_predictions(path, sents, metadata={"model": "fake", "dataset": "rand", "split": "test"})
    return ds, t, path, sents


def conll_chunks(tags):
    """Independent chunk extraction (conlleval's start/end rules for IOB2/IOB1 input)."""
    chunks, start, typ = [], None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        p, _, ty = tag.partition("-")
        end_prev = start is not None and (p in ("O", "B") or ty != typ)
        if end_prev:
            chunks.append((start, i, typ))
            start, typ = None, None
        if p == "B" or (p == "I" and start is None):
            start, typ = i, ty
    return set(chunks)


def test_pearson_and_spearman_equal_scipy(setup):
    ds, t, path, sents = setup
    seg = ChunkSegmenter(3)
    x, y, x_ne, y_ne, bins = [], [], [], [], {}
    for words, gold, pred in sents:
        for w, g, p in zip(words, gold, pred):
            n = len(seg.pieces(w))
            x.append(n)
            y.append(int(p != g))
            if g != "O":
                x_ne.append(n)
                y_ne.append(int(p != g))
            k = str(n) if n < 5 else "5+"
            c = bins.setdefault(k, [0, 0])
            c[0] += 1
            c[1] += int(p != g)
    res = correlate_errors(t, read_predictions(path), "chunk3", bootstrap=BootstrapSettings(200, seed=1))
    r, p = stats.pearsonr(x, y)
    rho, sp = stats.spearmanr(x, y)
    assert res.all.r == pytest.approx(r, abs=1e-12) and res.all.p_value == pytest.approx(p, rel=1e-9)
    assert res.all.spearman == pytest.approx(rho, abs=1e-12) and res.all.spearman_p == pytest.approx(sp, rel=1e-9)
    r_ne, p_ne = stats.pearsonr(x_ne, y_ne)
    assert res.ne.r == pytest.approx(r_ne, abs=1e-12) and res.ne.p_value == pytest.approx(p_ne, rel=1e-9)
    assert res.all.r > 0.1 and res.all.low < res.all.r < res.all.high
    assert res.n_words == len(x) and res.n_errors == sum(y)
    assert {b.pieces: [b.n, b.n_errors] for b in res.by_pieces if b.n} == bins
    assert res.model == "fake"
    extra = correlate_errors(
        t, read_predictions(path), "chunk3", measure="extra_pieces", bootstrap=BootstrapSettings(0)
    )
    assert extra.all.r == pytest.approx(r, abs=1e-12)  # shift-invariant
    assert correlate_errors(t, read_predictions(path), "chunk3", bootstrap=BootstrapSettings(200, seed=1)) == res


def test_entity_view_matches_independent_chunking(setup):
    ds, t, path, sents = setup
    seg = ChunkSegmenter(3)
    max_p, mean_p, missed = [], [], []
    for words, gold, pred in sents:
        found = conll_chunks(pred)
        for a, b, typ in sorted(conll_chunks(gold)):
            max_p.append(max(len(seg.pieces(w)) for w in words[a:b]))
            mean_p.append(sum(len(seg.pieces(w)) for w in words[a:b]) / (b - a))
            missed.append(int((a, b, typ) not in found))
    res = correlate_errors(t, read_predictions(path), "chunk3", bootstrap=BootstrapSettings(0)).entities
    assert res.n_entities == len(missed) and res.n_found == len(missed) - sum(missed)
    r, p = stats.pearsonr(max_p, missed)
    assert res.max_pieces.r == pytest.approx(r, abs=1e-12) and res.max_pieces.p_value == pytest.approx(p, rel=1e-9)
    assert sum(b.n for b in res.by_max_pieces) == len(missed)
    assert {b.pieces: b.n for b in res.by_max_pieces if b.n} == {
        k: n for k in ("1", "2", "3", "4", "5+") if (n := sum((str(m) if m < 5 else "5+") == k for m in max_p))
    }
    r_mean, _ = stats.pearsonr(mean_p, missed)
    assert res.mean_pieces.r == pytest.approx(r_mean, abs=1e-12)


def _write(tmp_path, sents, name="bad.tsv"):
    return read_predictions(write_predictions(tmp_path / name, sents))


def test_alignment_errors_name_sentence_and_words(setup, tmp_path):
    ds, t, _, sents = setup
    bad = list(sents)
    words = list(bad[7][0])
    words[1] = words[1] + "x"
    bad[7] = (tuple(words), bad[7][1], bad[7][2])
    with pytest.raises(
        AlignmentError,
        match=rf"sentence 7, word 1: predictions have '{words[1]}' where the dataset has '{words[1][:-1]}'",
    ):
        align_predictions(t, _write(tmp_path, bad))
    short = list(sents)
    short[3] = (
        (short[3][0][:-1], short[3][1][:-1], short[3][2][:-1])
        if len(short[3][0]) > 1
        else (("a", "b") + short[3][0], ("O", "O") + short[3][1], ("O", "O") + short[3][2])
    )
    with pytest.raises(AlignmentError, match="sentence 3: .* predicted words but the dataset sentence has"):
        align_predictions(t, _write(tmp_path, short, "short.tsv"))
    with pytest.raises(AlignmentError, match="499 predicted sentences but dataset 'rand:test' has 500"):
        align_predictions(t, _write(tmp_path, sents[:-1], "missing.tsv"))
    gold = list(sents)
    g = list(gold[2][1])
    g[0] = "B-XYZ"
    gold[2] = (gold[2][0], tuple(g), gold[2][2])
    with pytest.raises(AlignmentError, match="sentence 2, word 0 .*gold tag 'B-XYZ'"):
        align_predictions(t, _write(tmp_path, gold, "gold.tsv"))
    assert len(align_predictions(t, _write(tmp_path, gold, "gold.tsv"), check_gold=False)) == t.__len__()
    # a tag the model never saw in training, written as gold O by the fine-tuner (unseen_labels="map_o")
    mapped = list(sents)
    i = next(k for k, s in enumerate(mapped) if any(tag != "O" for tag in s[1]))
    j = next(k for k, tag in enumerate(mapped[i][1]) if tag != "O")
    g = list(mapped[i][1])
    unseen, g[j] = g[j], "O"
    mapped[i] = (mapped[i][0], tuple(g), mapped[i][2])
    with pytest.raises(AlignmentError, match=f"gold tag 'O' in the predictions but '{unseen}'.*unseen_as_o"):
        align_predictions(t, _write(tmp_path, mapped, "mapped.tsv"))
    aligned = align_predictions(t, _write(tmp_path, mapped, "mapped.tsv"), unseen_as_o=[unseen])
    assert aligned.gold.count("O") == align_predictions(t, _write(tmp_path, sents)).gold.count("O") + 1


def test_sentence_order_by_sent_id_and_dataset_choice(setup, tmp_path):
    ds, t, _, sents = setup
    order = list(range(len(sents)))[::-1]
    path = write_predictions(tmp_path / "rev.tsv", [sents[i] for i in order], sent_ids=order)
    a = align_predictions(t, read_predictions(path))
    assert a.pred == [p for s in sents for p in s[2]]
    other = random_dataset(22, 5, name="other")
    t2 = segmentation_table([ds, other], [ChunkSegmenter(3)], progress=False)
    with pytest.raises(AlignmentError, match="cannot tell which"):
        align_predictions(t2, read_predictions(path))
    assert align_predictions(t2, read_predictions(path), dataset="rand:test").dataset == "rand:test"
    with_meta = write_predictions(tmp_path / "m.tsv", sents, metadata={"dataset": "rand", "split": "test"})
    assert align_predictions(t2, read_predictions(with_meta)).dataset == "rand:test"


def test_constant_errors_give_nan_not_a_crash(setup, tmp_path):
    ds, t, _, sents = setup
    perfect = [(w, g, g) for w, g, _ in sents]
    res = correlate_errors(t, _write(tmp_path, perfect, "perfect.tsv"), "chunk3", bootstrap=BootstrapSettings(50))
    assert np.isnan(res.all.r) and res.n_errors == 0 and res.entities.n_found == res.entities.n_entities


@pytest.mark.parametrize("n, ties", [(3, False), (10, True), (200, True), (5000, False), (5000, True)])
def test_pearson_spearman_equals_scipy(n, ties):
    """The scipy.stats-free formulas give scipy.stats.pearsonr / spearmanr's numbers (r, rho and p)."""
    from scipy import stats

    from tokstudy.analysis.model_errors.correlation import pearson_spearman

    rng = np.random.default_rng(n)
    x = rng.integers(1, 6, n).astype(float) if ties else rng.normal(size=n)
    y = 0.1 * x + rng.normal(size=n) if n > 3 else np.array([1.0, 3.0, 2.0])
    y = np.round(y, 1) if ties else y
    r, p, rho, sp = pearson_spearman(x, y)
    want_r, want_p = stats.pearsonr(x, y)
    want_rho, want_sp = stats.spearmanr(x, y)
    assert r == pytest.approx(want_r, abs=1e-12) and p == pytest.approx(want_p, rel=1e-9, abs=1e-300)
    assert rho == pytest.approx(want_rho, abs=1e-12) and sp == pytest.approx(want_sp, rel=1e-9, abs=1e-300)
    r, p, rho, sp = pearson_spearman(x, -x)
    assert (r, rho) == (pytest.approx(-1.0), pytest.approx(-1.0)) and sp == 0.0
    assert p == pytest.approx(stats.pearsonr(x, -x)[1], rel=1e-6, abs=1e-15)


def test_shared_entity_spans_give_the_same_result(setup):
    """``spans`` found once (``entity_spans``) and passed to each tokenizer's ``correlate_errors`` change nothing."""
    from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
    from tokstudy.analysis.model_errors.correlation import entity_spans

    ds, t, path, sents = setup
    aligned = align_predictions(t, read_predictions(path))
    spans = entity_spans(t, aligned)
    assert len(spans.first) == sum(len(conll_chunks(gold)) for _, gold, _ in sents)
    for seed in (0, 3):
        shared = correlate_errors(t, aligned, "chunk3", bootstrap=BootstrapSettings(50, seed=seed), spans=spans)
        assert shared == correlate_errors(
            t, read_predictions(path), "chunk3", bootstrap=BootstrapSettings(50, seed=seed)
        )
