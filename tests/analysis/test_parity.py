"""Parity on parallel text against a naive recount; the real XQuAD paragraphs when present."""

from __future__ import annotations

import pytest

from tests.analysis.conftest import ChunkSegmenter, SpmSegmenter
from tests.conftest import corpus_path
from tokstudy.analysis.parity import parity, read_parallel_text
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
    (res,) = parity(PARAS, [seg], n_resamples=100, seed=3)
    for lang in PARAS:
        par, fert = naive(PARAS, seg, lang)
        assert res.languages[lang].parity.value == pytest.approx(par)
        assert res.languages[lang].fertility.value == pytest.approx(fert)
    assert res.languages["en"].parity.value == 1.0
    assert res.languages["de"].n_paragraphs == 3 and "word-boundary" in res.boundary_policy
    assert parity(PARAS, [seg], n_resamples=100, seed=3)[0] == res


def test_not_parallel_is_an_error():
    with pytest.raises(AlignmentError, match="de has 1 paragraphs but en has 3"):
        parity({"en": PARAS["en"], "de": ["x"]}, [ChunkSegmenter(2)])
    with pytest.raises(AlignmentError, match="reference language 'en'"):
        parity({"de": ["x"]}, [ChunkSegmenter(2)])


def test_real_xquad_parity(spm_model):
    d = corpus_path("xquad_parallel")
    paras = read_parallel_text(d, ["en", "de", "ru"])
    seg = SpmSegmenter(spm_model, "spm400")
    (res,) = parity(paras, [seg], n_resamples=200)
    for lang in ("de", "ru"):
        ref = sum(len(seg.sp.encode(w, out_type=str)) for p in paras[lang] for w in p.split())
        en = sum(len(seg.sp.encode(w, out_type=str)) for p in paras["en"] for w in p.split())
        assert res.languages[lang].parity.value == pytest.approx(ref / en)
        lp = res.languages[lang].parity
        assert lp.low < lp.value < lp.high
    # an English-trained vocabulary needs more pieces for German than for English
    # (not a claim about Russian: unseen Cyrillic collapses into few unknown pieces)
    assert res.languages["de"].parity.value > 1.0
