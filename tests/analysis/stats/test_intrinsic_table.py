"""Intrinsic metrics over the table: equal to a brute-force recount per group, unknown pieces pooled,
entropy intervals as wide as a full re-counting sentence bootstrap."""

from __future__ import annotations

from collections import Counter
from statistics import NormalDist

import numpy as np
import pytest

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.stats import intrinsic, table_statistics
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table


@pytest.fixture(scope="module")
def setup():
    ds = [random_dataset(41, 400), random_dataset(42, 150, name="b", language="de")]
    seg = ChunkSegmenter(3)
    seg.vocab_size = 5000  # the test double's default is smaller than the pieces it makes up
    t = segmentation_table(ds, [seg], progress=False)
    return ds, seg, t


def brute(ds, seg, keep):
    """Piece counts (every unknown piece pooled as one), characters, bytes, by hand."""
    counts, chars, nbytes = Counter(), 0, 0
    for d in ds:
        for s in d:
            for w, tag in zip(s.words, s.tags or [None] * len(s.words)):
                if keep(d, tag):
                    counts.update(seg.pieces(w))
                    chars += len(w)
                    nbytes += len(w.encode("utf-8"))
    return counts, chars, nbytes


@pytest.mark.parametrize(
    "group,keep",
    [
        ("ne", lambda d, tag: tag is not None and tag != "O"),
        ("non_ne", lambda d, tag: tag == "O"),
        ("all", lambda d, tag: True),
        ("language:de", lambda d, tag: d.language == "de"),
    ],
)
def test_every_figure_equals_a_brute_force_recount(setup, group, keep):
    ds, seg, t = setup
    (res,) = table_statistics(t, bootstrap=BootstrapSettings(0), renyi_alpha=2.0).intrinsic
    e = res.groups[group]
    counts, chars, nbytes = brute(ds, seg, keep)
    c = np.array(list(counts.values()), float)
    n = c.sum()
    assert e.chars_per_piece.value == pytest.approx(chars / n) and e.bytes_per_piece.value == pytest.approx(nbytes / n)
    assert e.shannon_entropy.value == pytest.approx(-(c / n * np.log2(c / n)).sum(), rel=1e-12)
    renyi = np.log2(((c / n) ** 2).sum()) / (1 - 2)
    assert e.renyi_efficiency.value == pytest.approx(renyi / np.log2(res.vocab_size), rel=1e-12)
    assert e.vocab_utilization.value == pytest.approx(len(counts) / res.vocab_size)
    assert res.vocab_size == seg.vocab_size and e.n_pieces == n and e.n_distinct == len(counts)


def test_entropy_interval_matches_a_full_recounting_bootstrap(setup):
    """The linear-bootstrap interval has the spread of a bootstrap that re-counts every piece."""
    ds, seg, t = setup
    (res,) = table_statistics(t, bootstrap=BootstrapSettings(200, seed=3)).intrinsic
    e = res.groups["all"]
    sents = [s for d in ds for s in d if s.words]
    per_sent = [Counter(p for w in s.words for p in seg.pieces(w)) for s in sents]
    vocab = sorted(set().union(*per_sent))
    index = {p: i for i, p in enumerate(vocab)}
    m = np.zeros((len(sents), len(vocab)))
    for i, c in enumerate(per_sent):
        for p, k in c.items():
            m[i, index[p]] = k
    rng = np.random.default_rng(0)
    h, eff = [], []
    draws = np.stack([np.bincount(rng.integers(0, len(sents), len(sents)), minlength=len(sents)) for _ in range(1500)])
    for counts in draws.astype(float) @ m:
        h.append(intrinsic.shannon_entropy(counts))
        eff.append(intrinsic.renyi_efficiency(counts, vocab_size=res.vocab_size))
    z = NormalDist().inv_cdf(0.975)
    for est, boot in ((e.shannon_entropy, h), (e.renyi_efficiency, eff)):
        half = (est.high - est.low) / 2
        assert half == pytest.approx(z * np.std(boot), rel=0.15)
        assert est.low < est.value < est.high
    assert np.isnan(e.vocab_utilization.low)  # a count of distinct pieces gets no interval


def test_unknown_pieces_count_as_one_piece_of_the_vocabulary():
    from tokstudy.data.types import Dataset, Sentence

    ds = Dataset((Sentence(("ab1", "cd2", "ab"), ("O", "O", "O")),), "u", "en", "test")
    seg = ChunkSegmenter(2)  # pieces: ab, <unk>, cd, <unk>, ab  (the unknown chunk's surface differs)
    t = segmentation_table([ds], [seg], progress=False)
    (res,) = table_statistics(t, bootstrap=BootstrapSettings(0)).intrinsic
    assert res.groups["all"].n_distinct == 3 and res.groups["all"].n_pieces == 5


def test_a_vocabulary_smaller_than_the_pieces_seen_gives_no_efficiency(setup):
    ds, _, _ = setup
    t = segmentation_table(ds, [ChunkSegmenter(3)], progress=False)  # reports 300, makes ~2,400 pieces
    (res,) = table_statistics(t, bootstrap=BootstrapSettings(0)).intrinsic
    assert res.vocab_size == 0 and np.isnan(res.groups["all"].renyi_efficiency.value)
    assert np.isnan(res.groups["all"].vocab_utilization.value) and res.groups["all"].shannon_entropy.value > 0


def test_intrinsic_can_be_switched_off(setup):
    _, _, t = setup
    assert table_statistics(t, bootstrap=BootstrapSettings(0), intrinsic=False).intrinsic == []


def test_stats_json_carries_the_five_fields_per_tokenizer_and_group(spm_model, tmp_path, capsys):
    import json

    from tokstudy.cli import main

    conll = tmp_path / "tiny.conll"
    conll.write_text("EU B-ORG\nrejects O\nGerman B-MISC\ncall O\n\nPeter B-PER\nBlackburn I-PER\n\n", encoding="utf-8")
    out = tmp_path / "s.json"
    assert (
        main(
            [
                "stats",
                "-d",
                str(conll),
                "-t",
                f"tiny={spm_model}",
                "--renyi-alpha",
                "3",
                "--resamples",
                "30",
                "--json",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    assert "Rényi efficiency (α=3)" in capsys.readouterr().out
    (res,) = json.loads(out.read_text())["intrinsic"]
    assert res["tokenizer"] == "tiny" and res["renyi_alpha"] == 3 and set(res["groups"]) == {"ne", "non_ne", "all"}
    for group in res["groups"].values():
        for field in ("chars_per_piece", "bytes_per_piece", "shannon_entropy", "renyi_efficiency", "vocab_utilization"):
            assert group[field]["value"] > 0, field


def _same_figures(a, b):
    assert [s.tokenizer for s in a] == [s.tokenizer for s in b]
    for x, y in zip(a, b):
        assert x.groups.keys() == y.groups.keys() and x.vocab_size == y.vocab_size
        for g in x.groups:
            ex, ey = x.groups[g], y.groups[g]
            assert (ex.n_pieces, ex.n_distinct) == (ey.n_pieces, ey.n_distinct)
            for f in ("chars_per_piece", "bytes_per_piece", "shannon_entropy", "renyi_efficiency", "vocab_utilization"):
                for k in ("value", "low", "high"):
                    u, v = getattr(getattr(ex, f), k), getattr(getattr(ey, f), k)
                    assert u == pytest.approx(v, rel=1e-12, nan_ok=True), (g, f, k)


def test_vocabulary_ids_give_the_figures_of_the_piece_strings(spm_model):
    """SentencePiece's ids, kept by the table, count the pieces as their strings do (to rounding)."""
    import dataclasses

    from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter

    ds = [random_dataset(41, 300), random_dataset(42, 100, name="b", language="de")]
    t = segmentation_table(ds, [SentencePieceSegmenter(spm_model, name="sp")], progress=False)
    col = t.column("sp")
    assert col.type_piece_ids is not None and len(col.type_piece_ids) == len(col.type_pieces)
    strings = dataclasses.replace(t, tokenizers={"sp": dataclasses.replace(col, type_piece_ids=None)})
    _same_figures(
        table_statistics(t, bootstrap=BootstrapSettings(100)).intrinsic,
        table_statistics(strings, bootstrap=BootstrapSettings(100)).intrinsic,
    )


def test_ids_that_do_not_tell_pieces_apart_as_strings_do_are_not_used():
    import dataclasses

    from tokstudy.analysis.stats.intrinsic_table import _piece_ids
    from tokstudy.analysis.table import TokenizerColumns

    pieces = ["a", "b", "a", "c", "b"]
    col = TokenizerColumns("t", "test", 10, "", pieces, np.array([0, 2, 5]), np.array([2, 3]), np.zeros(2, np.int32))
    assert _piece_ids(col)[1:] == (3, 3)  # strings: a, b, c
    good = dataclasses.replace(col, type_piece_ids=np.array([7, 4, 7, 0, 4]))
    assert _piece_ids(good)[0] is good.type_piece_ids and _piece_ids(good)[1:] == (8, 3)
    merged = dataclasses.replace(col, type_piece_ids=np.array([1, 1, 1, 2, 1]))  # "a" and "b" share an id
    split = dataclasses.replace(col, type_piece_ids=np.array([1, 2, 3, 4, 2]))  # two ids are both "a"
    for bad in (merged, split):
        codes, n, distinct = _piece_ids(bad)
        assert (n, distinct) == (3, 3) and codes.tolist() == [0, 1, 0, 2, 1]
