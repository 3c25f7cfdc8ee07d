"""SNIPS/ATIS layout reader: alignment errors name the file and line; trailing spaces are harmless."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from tokstudy.data.slu import read_slu
from tokstudy.errors import DataFormatError, DataNotFoundError, TagSchemeError


def make(tmp_path, seq_in, seq_out, label):
    for name, text in (("seq.in", seq_in), ("seq.out", seq_out), ("label", label)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_reads_trailing_space_lines(tmp_path):
    d = make(tmp_path, "play abba \nrate it 5 \n", "O B-artist \nO O B-rating \n", "PlayMusic\nRateBook\n")
    ds = read_slu(d, name="snips", split="train")
    assert [s.words for s in ds] == [("play", "abba"), ("rate", "it", "5")]
    assert [s.label for s in ds] == ["PlayMusic", "RateBook"] and [s.line for s in ds] == [1, 2]
    assert (ds.name, ds.split, ds.language) == ("snips", "train", "en")


def test_token_count_mismatch_names_line(tmp_path):
    d = make(tmp_path, "a b\nc d e\n", "O O\nO O\n", "x\ny\n")
    with pytest.raises(DataFormatError, match=r"seq\.out:2: 3 words in seq\.in but 2 tags in seq\.out"):
        read_slu(d)


def test_line_count_mismatch(tmp_path):
    d = make(tmp_path, "a\nb\n", "O\nO\n", "x\n")
    with pytest.raises(DataFormatError, match=r"label:2: .*seq\.in has 2, seq\.out has 2, label has 1 lines"):
        read_slu(d)


def test_bad_tags_and_lenient(tmp_path):
    d = make(tmp_path, "a b\n", "O I-city\n", "x\n")
    with pytest.raises(TagSchemeError, match=r"seq\.out:1: tag 'I-city' at word 2 follows 'O'"):
        read_slu(d)
    ds = read_slu(d, lenient=True)
    assert ds.repaired == 1 and ds[0].tags == ("O", "B-city")


def test_invalid_utf8_empty_missing(tmp_path):
    d = make(tmp_path, "a\nb\n", "O\nO\n", "x\ny\n")
    (d / "seq.in").write_bytes(b"a\n\xffb\n")
    with pytest.raises(DataFormatError, match=r"seq\.in:2: invalid UTF-8"):
        read_slu(d)
    (d / "seq.in").write_text("")
    with pytest.raises(DataFormatError, match=r"seq\.in: file is empty"):
        read_slu(d)
    (d / "seq.in").unlink()
    with pytest.raises(DataNotFoundError, match=r"seq\.in: file not found"):
        read_slu(d)


def test_real_snips_first_utterance():
    ds = read_slu(corpus_path("snips") / "train", name="snips", split="train")
    assert ds[0].words == ("listen", "to", "westbam", "alumb", "allergic", "on", "google", "music")
    assert ds[0].tags[2] == "B-artist" and ds[0].label == "PlayMusic"
