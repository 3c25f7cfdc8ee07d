"""The per-word table against brute-force references: per-word encoding, iob2_spans, exports."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from tests.analysis.conftest import ChunkSegmenter, SpmSegmenter, random_dataset
from tokstudy.analysis.table import SegmentationTable, segmentation_table
from tokstudy.data.types import Dataset, Sentence, iob2_spans
from tokstudy.errors import DataFormatError, TagSchemeError


def test_toy_table_columns(toy):
    seg = ChunkSegmenter(3)
    t = segmentation_table([toy], [seg], progress=False)
    assert len(t) == 8 and t.n_sentences == 3 and t.n_entities == 4
    assert t.words == ["EU", "rejects", "German", "call", "Peter", "Blackburn", "BRUSSELS", "1996-08-22"]
    assert t.n_pieces("chunk3").tolist() == [1, 3, 2, 2, 2, 3, 3, 4]
    assert t.n_unk("chunk3").tolist() == [0, 0, 0, 0, 0, 0, 0, 4]
    assert t.pieces_of("chunk3", 5) == ["Bla", "ckb", "urn"]
    assert t.position.tolist() == [1, 0, 1, 0, 1, 2, 1, 0]
    assert t.entity_id.tolist() == [0, -1, 1, -1, 2, 2, 3, -1]
    assert [t.entity_types[c] if c >= 0 else "" for c in t.entity_type_code] == [
        "ORG",
        "",
        "MISC",
        "",
        "PER",
        "PER",
        "LOC",
        "",
    ]
    assert t.word_index.tolist() == [0, 1, 2, 3, 0, 1, 0, 1]
    assert t.datasets == ("toy:test",) and t.languages == ("en",)
    assert "lone word-boundary" in t.boundary_policy("chunk3")
    assert seg.calls == 1


def test_pieces_match_brute_force_per_word_encoding(spm_model):
    ds = [random_dataset(1, 150), random_dataset(2, 80, name="other", language="de")]
    spm_seg = SpmSegmenter(spm_model, "spm400")
    chunk = ChunkSegmenter(2)
    t = segmentation_table(ds, [spm_seg, chunk], progress=False)
    words = [w for d in ds for s in d for w in s.words]
    assert t.words == words
    unk = spm_seg.sp.id_to_piece(spm_seg.sp.unk_id())
    for r, w in enumerate(words):
        ref = spm_seg.sp.encode(w, out_type=str)  # one call per word: the reference
        assert t.pieces_of("spm400", r) == ref
        assert t.n_pieces("spm400")[r] == len(ref)
        assert t.n_unk("spm400")[r] == sum(p == unk for p in ref)
        assert t.pieces_of("chunk2", r) == chunk.pieces(w)
    assert chunk.calls == 1  # one vectorised call for all datasets together
    assert t.piece_lists("chunk2") == [chunk.pieces(w) for w in words]


def test_entities_match_iob2_spans_per_sentence():
    ds = random_dataset(3, 300)
    t = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    r = 0
    seen_ids = set()
    for s in ds:
        spans = iob2_spans(s.tags)
        pos = ["O"] * len(s.words)
        for a, b, typ in spans:
            pos[a] = "B"
            for i in range(a + 1, b):
                pos[i] = "I"
            ids = set(t.entity_id[r + a : r + b].tolist())
            assert len(ids) == 1 and ids.pop() not in seen_ids
            seen_ids.add(int(t.entity_id[r + a]))
            assert {t.entity_types[c] for c in t.entity_type_code[r + a : r + b]} == {typ}
        assert ["OBI"[p] for p in t.position[r : r + len(s.words)]] == pos
        assert t.tag_of_rows()[r : r + len(s.words)] == list(s.tags)
        r += len(s.words)
    assert t.n_entities == sum(len(s.entities()) for s in ds)


def test_sentence_ids_and_find_sentence():
    a, b = random_dataset(4, 10, name="a"), random_dataset(5, 7, name="b", split="dev")
    t = segmentation_table([a, b], [ChunkSegmenter(3)], progress=False)
    assert t.n_sentences == 17
    g = t.find_sentence("b:dev", 3)
    rows = t.sentence_rows(g)
    assert [t.word(r) for r in range(rows.start, rows.stop)] == list(b[3].words)
    assert set(t.sent_id[rows].tolist()) == {3}
    assert t.splits == ("test", "dev")


def test_unknown_tag_scheme_names_the_place():
    ds = Dataset(
        (
            Sentence(("a", "b"), ("O", "O"), sent_id=0, line=1),
            Sentence(("Paris", "x"), ("S-LOC", "O"), sent_id=1, line=4),
        ),
        name="bio",
        split="test",
        source="/data/bio.conll",
    )
    with pytest.raises(TagSchemeError) as err:
        segmentation_table([ds], [ChunkSegmenter(2)], progress=False)
    msg = str(err.value)
    assert "/data/bio.conll:4" in msg and "sentence 1" in msg and "'S-LOC'" in msg and "'Paris'" in msg


def test_empty_dataset_is_an_error():
    with pytest.raises(DataFormatError, match="has no words"):
        segmentation_table([Dataset((), name="empty", source="/x/empty.conll")], [ChunkSegmenter(2)], progress=False)
    with pytest.raises(DataFormatError, match="no datasets"):
        segmentation_table([], [ChunkSegmenter(2)], progress=False)


def test_duplicate_names_rejected(toy):
    with pytest.raises(ValueError, match="two tokenizers"):
        segmentation_table([toy], [ChunkSegmenter(2), ChunkSegmenter(2)], progress=False)
    with pytest.raises(ValueError, match="given twice"):
        segmentation_table([toy, toy], [ChunkSegmenter(2)], progress=False)


def test_same_name_split_in_two_languages_gets_language_label():
    a = random_dataset(1, 3, name="wikiann", language="ru")
    b = random_dataset(2, 3, name="wikiann", language="en")
    t = segmentation_table([a, b], [ChunkSegmenter(2)], progress=False)
    assert t.datasets == ("wikiann:ru:test", "wikiann:en:test")


def test_unlabelled_sentences_are_neither_ne_nor_non_ne():
    ds = random_dataset(6, 30, unlabelled_every=3)
    t = segmentation_table([ds], [ChunkSegmenter(2)], progress=False)
    unl = ~t.labelled
    assert unl.sum() == sum(len(s.words) for s in ds if s.tags is None)
    assert not (t.inside & unl).any()


def test_parquet_round_trip_and_csv(tmp_path, spm_model):
    ds = [random_dataset(7, 40), random_dataset(8, 20, name="b", language="de", unlabelled_every=4)]
    t = segmentation_table(ds, [SpmSegmenter(spm_model, "spm"), ChunkSegmenter(3)], progress=False)
    t.to_parquet(tmp_path / "t.parquet")
    back = SegmentationTable.from_parquet(tmp_path / "t.parquet")
    assert back.datasets == t.datasets and back.tokenizer_names == t.tokenizer_names
    for name in t.tokenizer_names:
        assert back.piece_lists(name) == t.piece_lists(name)
        assert np.array_equal(back.n_unk(name), t.n_unk(name))
        assert back.boundary_policy(name) == t.boundary_policy(name)
    for col in ("sentence", "sent_id", "position", "entity_id", "labelled", "language_code"):
        assert np.array_equal(getattr(back, col), getattr(t, col)), col
    t.to_csv(tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(t)
    assert rows[0]["word"] == t.word(0) and rows[0]["pieces:chunk3"] == " ".join(t.pieces_of("chunk3", 0))
    assert int(rows[5]["n_pieces:spm"]) == t.n_pieces("spm")[5]
    dicts = t.to_rows(["chunk3"])
    assert dicts[3]["pieces:chunk3"] == t.pieces_of("chunk3", 3) and "pieces:spm" not in dicts[3]
