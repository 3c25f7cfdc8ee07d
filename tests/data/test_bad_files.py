"""Issue 15 items 3, 6, 7, 8 at the readers: CR-only files, ragged first lines, gzip by magic bytes,
encodings, a limit on columns, and every bad line (up to 20) reported with the total."""

from __future__ import annotations

import gzip

import pytest

from tokstudy.data.conll import read_conll
from tokstudy.data.jsonl import read_jsonl
from tokstudy.data.textio import iter_lines
from tokstudy.data.tsv import read_tsv
from tokstudy.errors import DataFormatError, DataNotFoundError, TagSchemeError

CONLL = (
    "-DOCSTART- -X- O\n\nEU NNP B-ORG\nrejects VBZ O\nGerman JJ B-MISC\ncall NN O\n\n"
    "Peter NNP B-PER\nBlackburn NNP I-PER\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_any_line_ending_reads_the_same_6_words_and_2_sentences(tmp_path, newline):
    path = tmp_path / "f.conll"
    path.write_bytes(CONLL.replace("\n", newline).encode())
    ds = read_conll(path)
    assert (ds.n_words, len(ds)) == (6, 2)
    assert [s.line for s in ds] == [3, 8]


def test_mixed_line_endings_count_lines_like_python(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"a\rb\r\nc\n\rd")
    assert list(iter_lines(path)) == [(1, "a"), (2, "b"), (3, "c"), (4, ""), (5, "d")]


def test_ragged_first_line_is_blamed_not_the_second(tmp_path):
    path = tmp_path / "r.conll"
    path.write_text("EU B-ORG extra\nrejects O\nGerman B-MISC\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_conll(path)
    assert err.value.line == 1 and "line has 3 columns, expected 2 as on line 2 and 1 other word line" in str(err.value)


def test_lines_without_a_tag_are_blamed_even_when_most_lines_lack_it(tmp_path):
    path = tmp_path / "r.conll"
    path.write_text("EU B-ORG\nrejects\nGerman\ncall\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_conll(path)
    assert (err.value.line, err.value.total) == (2, 3) and "line has 1 column, expected 2 as on line 1" in str(
        err.value
    )


def test_up_to_20_ragged_lines_listed_with_the_total(tmp_path):
    lines = [f"w{i} O" if i % 2 else f"w{i} X O" for i in range(100)]  # 50 good, 50 bad: the bad are the minority
    lines.append("w O")  # 51 good
    path = tmp_path / "r.conll"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_conll(path)
    exc = err.value
    bad_lines = [i + 1 for i in range(100) if i % 2 == 0]
    assert exc.line == bad_lines[0] and [ln for ln, _ in exc.others] == bad_lines[1:20]
    assert exc.total == 50 and "50 problems in all; the first 20 are shown" in str(exc)


def test_several_tag_errors_reported_together(tmp_path):
    path = tmp_path / "t.conll"
    path.write_text("a FOO\nb O\n\nc B-\nd O\n\ne O\n", encoding="utf-8")
    with pytest.raises(TagSchemeError) as err:
        read_conll(path, scheme="IOB2")
    assert (err.value.line, err.value.total) == (1, 2) and f"{path}:4: tag 'B-'" in str(err.value)


def test_more_columns_than_the_limit_is_refused(tmp_path):
    path = tmp_path / "wide.conll"
    path.write_text(" ".join(["x"] * 17) + " O\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"wide.conll:1: line has 18 columns; expected at most 16"):
        read_conll(path)
    assert read_conll(path, max_columns=18).n_words == 1


def test_gzip_found_by_magic_bytes_whatever_the_name(tmp_path):
    path = tmp_path / "eng.testb"
    path.write_bytes(gzip.compress(CONLL.encode()))
    assert read_conll(path).n_words == 6


def test_truncated_gzip_is_a_format_error_with_a_line(tmp_path):
    path = tmp_path / "cut.gz"
    path.write_bytes(gzip.compress((CONLL * 50).encode())[:-30])
    with pytest.raises(DataFormatError) as err:
        read_conll(path)
    assert err.value.line is not None and "complete gzip file" in str(err.value)


def test_truncated_gzip_is_reported_where_it_breaks_off(tmp_path):
    """Not at line 1 (the reader fails on a whole block): near the last line that decompresses (issue 24)."""
    import random
    import zlib

    rng = random.Random(0)
    text = "".join(f"w{rng.randrange(10**6)} O\n" for _ in range(20000)).encode()
    data = gzip.compress(text)[:-30]
    available = zlib.decompressobj(31).decompress(data).count(b"\n")  # lines before the break, by zlib itself
    path = tmp_path / "cut.conll.gz"
    path.write_bytes(data)
    with pytest.raises(DataFormatError) as err:
        read_conll(path)
    assert available - 1000 < err.value.line <= available + 1
    assert "breaks off at or after this line" in str(err.value)


def test_directory_is_not_called_missing(tmp_path):
    with pytest.raises(DataNotFoundError, match="is a directory; expected a file"):
        read_conll(tmp_path)


def test_latin1_needs_the_encoding_and_reads_with_it(tmp_path):
    path = tmp_path / "esp.train"
    path.write_bytes("España B-LOC\nganó O\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match=r"esp.train:1: invalid UTF-8 .*--encoding latin-1"):
        read_conll(path)
    assert read_conll(path, encoding="latin-1")[0].words == ("España", "ganó")


def test_encoding_in_tsv_and_jsonl(tmp_path):
    tsv = tmp_path / "s.tsv"
    tsv.write_bytes("sentence\tlabel\ncafé crème\t1\n".encode("cp1252"))
    assert read_tsv(tsv, encoding="cp1252")[0].words == ("café", "crème")
    jl = tmp_path / "t.jsonl"
    jl.write_bytes('{"tokens": ["Zürich"], "tags": ["B-LOC"]}\n'.encode("latin-1"))
    assert read_jsonl(jl, encoding="latin-1")[0].words == ("Zürich",)


def test_unknown_or_unsuitable_encoding_refused(tmp_path):
    path = tmp_path / "f.conll"
    path.write_text("a O\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="unknown text encoding 'klingon'"):
        read_conll(path, encoding="klingon")
    with pytest.raises(DataFormatError, match="not ASCII-compatible"):
        read_conll(path, encoding="utf-16")


def test_tsv_and_jsonl_list_every_bad_line(tmp_path):
    tsv = tmp_path / "s.tsv"
    tsv.write_text("sentence\tlabel\nok\t1\nbad\n \t1\nfine\t0\nx\t1\t2\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_tsv(tsv)
    assert (err.value.line, [ln for ln, _ in err.value.others], err.value.total) == (3, [4, 6], 3)
    jl = tmp_path / "t.jsonl"
    jl.write_text('{"tokens": ["a"], "tags": ["O"]}\n[1]\n{"tokens": ["a"], "tags": []}\n', encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_jsonl(jl)
    assert (err.value.line, err.value.total) == (2, 2) and f"{jl}:3: 1 tokens but 0 tags" in str(err.value)
