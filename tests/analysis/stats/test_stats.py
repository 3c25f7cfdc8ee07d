"""Every statistic against a naive Python recount over the rows; the bootstrap against a loop."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.stats import (
    additional_segmentation,
    additional_segmentation_by,
    compare_tokenizers,
    segmentation_summary,
)
from tokstudy.analysis.stats.bootstrap import bootstrap_ratios, sentence_sums
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table


@pytest.fixture(scope="module")
def table():
    ds = [
        random_dataset(11, 400, name="a", language="en"),
        random_dataset(12, 250, name="b", language="de", split="dev", unlabelled_every=5),
    ]
    return ds, segmentation_table(ds, [ChunkSegmenter(2), ChunkSegmenter(4)], progress=False)


def naive_words(ds, seg):
    """(dataset index, language, split, sentence, tag, pieces list) per word, by plain loops."""
    out = []
    g = 0
    for d, dataset in enumerate(ds):
        for s in dataset:
            tags = s.tags or [None] * len(s.words)
            for w, tag in zip(s.words, tags):
                out.append(dict(d=d, lang=dataset.language, split=dataset.split, sent=g, tag=tag, pieces=seg.pieces(w)))
            g += 1
    # entity membership and position from a hand-written IOB2 walk
    prev = None
    for i, row in enumerate(out):
        tag = row["tag"]
        if tag is None or tag == "O":
            row["pos"], row["etype"] = "O", None
        else:
            prefix, typ = tag.split("-", 1)
            cont = prefix == "I" and prev is not None and prev["sent"] == row["sent"] and prev["etype"] == typ
            row["pos"], row["etype"] = ("I" if cont else "B"), typ
        prev = row
    return out


def pct_extra(rows):
    return 100 * (sum(len(r["pieces"]) for r in rows) / len(rows) - 1)


@pytest.mark.parametrize("size", [2, 4])
def test_additional_segmentation_matches_naive_recount(table, size):
    ds, t = table
    rows = naive_words(ds, ChunkSegmenter(size))
    res = additional_segmentation(t, f"chunk{size}", bootstrap=BootstrapSettings(0))
    ne = [r for r in rows if r["pos"] != "O"]
    non = [r for r in rows if r["pos"] == "O" and r["tag"] is not None]
    assert res.ne.value == pytest.approx(pct_extra(ne), abs=1e-9)
    assert res.non_ne.value == pytest.approx(pct_extra(non), abs=1e-9)
    assert res.all.value == pytest.approx(pct_extra(rows), abs=1e-9)
    assert (res.ne.n_words, res.non_ne.n_words, res.all.n_words) == (len(ne), len(non), len(rows))
    assert res.ne.n_sentences == len({r["sent"] for r in ne})
    assert math.isnan(res.ne.low)
    assert "word-boundary" in res.boundary_policy


@pytest.mark.parametrize(
    "by,key",
    [("entity_type", "etype"), ("position", "pos"), ("language", "lang"), ("dataset", "d"), ("split", "split")],
)
def test_grouped_matches_naive_recount(table, by, key):
    ds, t = table
    rows = naive_words(ds, ChunkSegmenter(2))
    groups = defaultdict(list)
    for r in rows:
        if by == "entity_type" and r["etype"] is None:
            continue
        groups[r[key]].append(r)
    res = additional_segmentation_by(t, "chunk2", by=by, bootstrap=BootstrapSettings(0))
    names = {"dataset": {0: "a:test", 1: "b:dev"}}.get(by, {})
    assert set(res.groups) == {names.get(k, k) for k in groups}
    for k, rs in groups.items():
        assert res.groups[names.get(k, k)].value == pytest.approx(pct_extra(rs), abs=1e-9)
        assert res.groups[names.get(k, k)].n_words == len(rs)


def test_grouped_with_subset(table):
    ds, t = table
    rows = naive_words(ds, ChunkSegmenter(2))
    res = additional_segmentation_by(t, "chunk2", by="language", subset="ne", bootstrap=BootstrapSettings(0))
    for lang in ("en", "de"):
        rs = [r for r in rows if r["lang"] == lang and r["pos"] != "O"]
        assert res.groups[lang].value == pytest.approx(pct_extra(rs), abs=1e-9)


def test_summary_matches_naive_recount(table):
    ds, t = table
    rows = naive_words(ds, ChunkSegmenter(4))
    s = segmentation_summary(t, "chunk4", bootstrap=BootstrapSettings(0))
    for subset, rs in (
        ("ne", [r for r in rows if r["pos"] != "O"]),
        ("non_ne", [r for r in rows if r["pos"] == "O" and r["tag"] is not None]),
        ("all", rows),
    ):
        got = getattr(s, subset)
        pieces = sum(len(r["pieces"]) for r in rs)
        cont = [r for r in rs if len(r["pieces"]) >= 2]
        unk = sum(p == "<unk>" for r in rs for p in r["pieces"])
        assert got.fertility.value == pytest.approx(pieces / len(rs))
        assert got.additional_segmentation.value == pytest.approx(100 * (pieces / len(rs) - 1))
        assert got.continued.value == pytest.approx(100 * len(cont) / len(rs))
        assert got.unknown.value == pytest.approx(100 * unk / pieces)
        assert got.pieces_per_continued.value == pytest.approx(sum(len(r["pieces"]) for r in cont) / len(cont))
        assert got.n_pieces == pieces


def test_bootstrap_matches_a_naive_loop_with_the_same_draws():
    rng = np.random.default_rng(5)
    S = 300
    num = rng.integers(0, 20, size=(S, 2)).astype(float)
    den = rng.integers(1, 10, size=(S, 2)).astype(float)
    got = bootstrap_ratios(num, den, bootstrap=BootstrapSettings(n_resamples=500, seed=42, confidence=0.9))
    draws = np.random.default_rng(42).integers(0, S, size=(500, S), dtype=np.int32)  # one chunk: the same draws
    ratios = np.array([[num[idx, k].sum() / den[idx, k].sum() for k in range(2)] for idx in draws])
    assert np.allclose(got.low, np.percentile(ratios, 5, axis=0))
    assert np.allclose(got.high, np.percentile(ratios, 95, axis=0))
    assert np.allclose(got.point, num.sum(0) / den.sum(0))


def test_bootstrap_reproducible_by_seed_and_brackets_point(table):
    _, t = table
    a = additional_segmentation(t, "chunk2", bootstrap=BootstrapSettings(300, seed=7))
    b = additional_segmentation(t, "chunk2", bootstrap=BootstrapSettings(300, seed=7))
    c = additional_segmentation(t, "chunk2", bootstrap=BootstrapSettings(300, seed=8))
    assert a == b
    assert a.ne.low != c.ne.low
    for e in (a.ne, a.non_ne, a.all):
        assert e.low < e.value < e.high
    assert f"{a.ne}".count("[") == 1


def test_sentence_sums_with_groups():
    sent = np.array([0, 0, 1, 2, 2, 2])
    grp = np.array([0, 1, 1, -1, 0, 0])
    vals = np.array([1.0, 2, 3, 4, 5, 6])
    assert sentence_sums(vals, sent, 3, grp, 2).tolist() == [[1, 2], [0, 3], [11, 0]]


def test_compare_tokenizers_and_errors(table):
    _, t = table
    rows = compare_tokenizers(t, bootstrap=BootstrapSettings(0))
    assert [r.tokenizer for r in rows] == ["chunk2", "chunk4"]
    assert rows[0].all.value > rows[1].all.value
    with pytest.raises(KeyError, match="no tokenizer 'nope'"):
        additional_segmentation(t, "nope")
    with pytest.raises(KeyError, match="name one"):
        additional_segmentation(t)
    with pytest.raises(ValueError, match="unknown grouping"):
        additional_segmentation_by(t, "chunk2", by="colour")
    with pytest.raises(ValueError, match="confidence"):
        additional_segmentation(t, "chunk2", bootstrap=BootstrapSettings(confidence=1.5))


def test_table_statistics_equals_separate_calls(table):
    from tokstudy.analysis.stats import table_statistics

    _, t = table
    kw = {"bootstrap": BootstrapSettings(150, seed=9)}
    together = table_statistics(t, groupings=["entity_type", "language"], **kw)
    assert together.table4 == [additional_segmentation(t, n, **kw) for n in t.tokenizer_names]
    assert together.summary == [segmentation_summary(t, n, **kw) for n in t.tokenizer_names]
    assert together.by["language"] == [additional_segmentation_by(t, n, by="language", **kw) for n in t.tokenizer_names]
