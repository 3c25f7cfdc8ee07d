"""Counting conventions of the segmenters: lone boundary, empty words, unknown pieces, normalisation."""

from __future__ import annotations

import numpy as np
import pytest

from tokstudy.tokenization.base import BOUNDARY
from tokstudy.tokenization.loading import load_tokenizer

KINDS = ["sp-unigram", "sp-bpe", "hf-unigram", "hf-bpe", "hf-wordpiece"]


@pytest.mark.parametrize("algorithm", KINDS)
def test_empty_words_get_zero_pieces_and_keep_alignment(trained, algorithm):
    seg = load_tokenizer(trained(algorithm)[0].path)
    words = ["", "Paris", "", "", "Москва", ""]
    out = seg.segment(words)
    assert len(out) == len(words)
    assert out.counts[[0, 2, 3, 5]].tolist() == [0, 0, 0, 0]
    assert out.pieces_of(1) == seg.segment(["Paris"]).as_lists()[0]
    assert out.pieces_of(4) == seg.segment(["Москва"]).as_lists()[0]
    assert seg.segment([]).offsets.tolist() == [0]
    assert seg.segment(["", ""]).offsets.tolist() == [0, 0, 0]


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe", "hf-unigram", "hf-bpe"])
def test_lone_boundary_switch(trained, algorithm):
    path = trained(algorithm)[0].path
    on = load_tokenizer(path, count_lone_boundary=True)
    off = load_tokenizer(path, count_lone_boundary=False)
    words = [",", "(", "Paris", "."]
    with_b, without_b = on.segment(words), off.segment(words)
    assert with_b.pieces_of(0) == [BOUNDARY, ","]
    assert without_b.pieces_of(0) == [","]
    assert without_b.counts.tolist() == [
        c - (p[0] == BOUNDARY and c > 1) for c, p in zip(with_b.counts.tolist(), with_b.as_lists())
    ]
    assert "not counted" in off.describe_boundary_policy() and "counts as one piece" in on.describe_boundary_policy()
    # a word whose only piece is the boundary keeps it: no non-empty word is left with zero pieces
    if on.segment([BOUNDARY]).counts[0] == 1:
        assert off.segment([BOUNDARY]).counts[0] == 1


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe", "hf-bpe", "hf-wordpiece"])
def test_unknown_pieces_flagged(trained, algorithm):
    seg = load_tokenizer(trained(algorithm)[0].path)
    # Georgian and Ethiopic are absent from raw_text, so they cannot be in the vocabulary
    out = seg.segment(["Paris", "ኢትዮጵያ", "ქართული", "the"])
    assert not out.unk[out.offsets[0] : out.offsets[1]].any()
    assert out.unk[out.offsets[1] : out.offsets[2]].any()
    assert out.unk[out.offsets[2] : out.offsets[3]].any()
    assert not out.unk[out.offsets[3] : out.offsets[4]].any()
    assert out.unk.dtype == bool and len(out.unk) == len(out.pieces)


def test_sentencepiece_unknown_pieces_show_their_text(trained):
    seg = load_tokenizer(trained("sp-unigram")[0].path)
    out = seg.segment(["ქართული"])
    assert "".join(out.pieces).replace(BOUNDARY, "") == "ქართული"


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe"])
def test_sentencepiece_segment_ids_is_segment_less_the_text_of_unknown_pieces(trained, algorithm, monkeypatch):
    """``segment_ids``: the offsets, unk flags and ids of ``segment`` in one encode call; a piece's text
    differs only where it is unknown (there it is the model's unknown piece), checked against
    sentencepiece's own ``encode`` of each word."""
    seg = load_tokenizer(trained(algorithm)[0].path)
    words = ["Paris", "ኢትዮጵያ", "", "ქართული", "the", "ﬁnal", "日本語ქ"]
    full, ids = seg.segment(words), seg.segment_ids(words)
    assert list(full.offsets) == list(ids.offsets) and list(full.unk) == list(ids.unk) and ids.unk.any()
    assert list(full.ids) == list(ids.ids)
    for i, w in enumerate(words):
        want_ids = seg.processor.encode(w, out_type=int) if w else []
        assert list(ids.ids[ids.offsets[i] : ids.offsets[i + 1]]) == want_ids
        want_text = seg.processor.encode(w, out_type=str) if w else []
        assert full.pieces_of(i) == want_text
        assert ids.pieces_of(i) == [
            seg.unk_piece if u else p for p, u in zip(want_text, ids.unk[ids.offsets[i] : ids.offsets[i + 1]])
        ]
    calls = []
    encode = type(seg)._encode
    monkeypatch.setattr(type(seg), "_encode", lambda self, ws, t: calls.append(len(ws)) or encode(self, ws, t))
    seg.segment_ids(words)
    assert calls == [6]  # the six non-empty words, once
    calls.clear()
    seg.segment(words)
    assert calls == [6, 3]  # then the three holding an unknown piece, for their text


def test_normalisation_can_change_a_word_but_not_alignment(trained):
    seg = load_tokenizer(trained("sp-unigram")[0].path)
    out = seg.segment(["ﬁnal", "Ｐａｒｉｓ", "x"])  # NFKC: ligature and full-width letters
    assert "".join(out.pieces_of(0)).replace(BOUNDARY, "") == "final"
    assert "".join(out.pieces_of(1)).replace(BOUNDARY, "") == "Paris"
    assert out.pieces_of(2) == seg.segment(["x"]).as_lists()[0]


def test_offsets_and_counts_are_int64(trained):
    for algorithm in ("sp-unigram", "hf-bpe"):
        out = load_tokenizer(trained(algorithm)[0].path).segment(["a", "bb", ""])
        assert out.offsets.dtype == np.int64 and out.counts.dtype == np.int64


def test_large_batch_spanning_many_chunks(trained):
    """HF segmenters encode chunks of words; order must hold across chunk borders."""
    from tokstudy.tokenization import hf

    seg = load_tokenizer(trained("hf-bpe")[0].path)
    words = [f"w{i}" if i % 7 else "" for i in range(hf.CHUNK * 3 + 5)]
    out = seg.segment(words)
    for i in (0, 1, hf.CHUNK - 1, hf.CHUNK, hf.CHUNK + 1, len(words) - 1):
        assert out.pieces_of(i) == (seg.segment([words[i]]).as_lists()[0])
