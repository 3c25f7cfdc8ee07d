"""Parity on parallel text against a naive recount; the real XQuAD paragraphs when present."""

from __future__ import annotations

import pytest

from tests.analysis.conftest import ChunkSegmenter, SpmSegmenter
from tests.conftest import corpus_path
from tests.fixtures_sentencepiece import train_unigram
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.parity import parity, read_parallel_text
from tokstudy.errors import AlignmentError

PARAS = {
    "en": ["the cat sat", "on the mat today", "x"],
    "de": ["die Katze sass", "auf der Matte heute", "yy zz"],
    "fi": ["kissa istui", "matolla tänään", "kolmekymmentä"],
}


def naive(paras, seg, lang, ref="en"):
    count = lambda ps: sum(len(seg.pieces(w)) for p in ps for w in p.split())  # noqa: E731
    return count(paras[lang]) / count(paras[ref]), count(paras[lang]) / sum(len(p.split()) for p in paras[lang])


def test_parity_matches_naive_recount():
    seg = ChunkSegmenter(2)
    (res,) = parity(PARAS, [seg], bootstrap=BootstrapSettings(100, seed=3))
    for lang in PARAS:
        par, fert = naive(PARAS, seg, lang)
        assert res.languages[lang].parity.value == pytest.approx(par)
        assert res.languages[lang].fertility.value == pytest.approx(fert)
    assert res.languages["en"].parity.value == 1.0
    assert res.languages["de"].n_paragraphs == 3 and "word-boundary" in res.boundary_policy
    assert parity(PARAS, [seg], bootstrap=BootstrapSettings(100, seed=3))[0] == res


def test_not_parallel_is_an_error():
    with pytest.raises(AlignmentError, match="de has 1 paragraphs but en has 3"):
        parity({"en": PARAS["en"], "de": ["x"]}, [ChunkSegmenter(2)])
    with pytest.raises(AlignmentError, match="reference language 'en'"):
        parity({"de": ["x"]}, [ChunkSegmenter(2)])


def test_real_xquad_parity(spm_model):
    d = corpus_path("xquad_parallel")
    paras = read_parallel_text(d, ["en", "de", "ru"])
    seg = SpmSegmenter(spm_model, "spm400")
    (res,) = parity(paras, [seg], bootstrap=BootstrapSettings(200))
    for lang in ("de", "ru"):
        ref = sum(len(seg.sp.encode(w, out_type=str)) for p in paras[lang] for w in p.split())
        en = sum(len(seg.sp.encode(w, out_type=str)) for p in paras["en"] for w in p.split())
        assert res.languages[lang].parity.value == pytest.approx(ref / en)
        lp = res.languages[lang].parity
        assert lp.low < lp.value < lp.high
    # an English-trained vocabulary needs more pieces for German than for English
    # (not a claim about Russian: unseen Cyrillic collapses into few unknown pieces)
    assert res.languages["de"].parity.value > 1.0


def brute_gini(xs):
    """Gini by the pairwise definition: mean absolute difference over twice the mean."""
    n = len(xs)
    return sum(abs(a - b) for a in xs for b in xs) / (2 * n * n * (sum(xs) / n))


def test_gini_equals_the_pairwise_formula():
    import random

    from tokstudy.analysis.stats.parity import gini_coefficient

    rng = random.Random(5)
    for n in (1, 2, 3, 7, 20):
        xs = [rng.uniform(0.2, 4.0) for _ in range(n)]
        assert gini_coefficient(xs) == pytest.approx(brute_gini(xs), abs=1e-12)
    assert gini_coefficient([2.0, 2.0, 2.0]) == pytest.approx(0.0, abs=1e-15)
    seg = ChunkSegmenter(2)
    (res,) = parity(PARAS, [seg], bootstrap=BootstrapSettings(200, seed=1))
    pars = [naive(PARAS, seg, lang)[0] for lang in PARAS]
    assert res.gini.value == pytest.approx(brute_gini(pars), abs=1e-12)
    assert res.gini.low <= res.gini.value <= res.gini.high


def test_parity_cli_json_has_gini(tmp_path):
    import json

    from tokstudy.cli import main

    d = tmp_path / "par"
    d.mkdir()
    for lang, paras in PARAS.items():
        (d / f"{lang}.txt").write_text("\n".join(paras) + "\n", encoding="utf-8")
    sp = tmp_path / "m"
    text = tmp_path / "t.txt"
    text.write_text("\n".join(p for ps in PARAS.values() for p in ps) * 20, encoding="utf-8")
    train_unigram(text, sp, 40, hard_vocab_limit=False)
    out = tmp_path / "p.json"
    assert main(["parity", "-t", f"{sp}.model", "--parallel-dir", str(d), "--resamples", "50", "--json", str(out)]) == 0
    (res,) = json.loads(out.read_text())
    assert 0 <= res["gini"]["value"] < 1 and res["gini"]["low"] is not None
