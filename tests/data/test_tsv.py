"""Sentence-classification TSV reader."""

from __future__ import annotations

import gzip

import pytest

from tokstudy.data.tsv import read_tsv
from tokstudy.errors import DataFormatError


def test_reads_plain_and_gz(tmp_path):
    text = "sentence\tlabel\nit 's a charming journey . \t1\nbleak \t0\n"
    (tmp_path / "a.tsv").write_text(text)
    (tmp_path / "a.tsv.gz").write_bytes(gzip.compress(text.encode()))
    for name in ("a.tsv", "a.tsv.gz"):
        ds = read_tsv(tmp_path / name, name="sst2", split="dev")
        assert [s.words for s in ds] == [("it", "'s", "a", "charming", "journey", "."), ("bleak",)]
        assert [s.label for s in ds] == ["1", "0"] and [s.line for s in ds] == [2, 3]
        assert ds[0].tags is None and ds.metadata["labels"] == ["0", "1"]


def test_other_column_order(tmp_path):
    (tmp_path / "b.tsv").write_text("label\tid\tsentence\npos\t7\tgood film\n")
    assert read_tsv(tmp_path / "b.tsv")[0].words == ("good", "film")


@pytest.mark.parametrize(
    "text,match",
    [
        ("text\tlabel\na\t1\n", r"c\.tsv:1: header .* lacks column 'sentence'"),
        ("sentence\tlabel\na\t1\nb\n", r"c\.tsv:3: row has 1 tab-separated fields, expected 2"),
        ("sentence\tlabel\n \t1\n", r"c\.tsv:2: empty sentence or label"),
        ("sentence\tlabel\n", r"c\.tsv: no rows after the header"),
        ("", r"c\.tsv: file is empty"),
    ],
)
def test_errors(tmp_path, text, match):
    (tmp_path / "c.tsv").write_text(text)
    with pytest.raises(DataFormatError, match=match):
        read_tsv(tmp_path / "c.tsv")
