"""Raw-text corpora through ``read_raw_text``: documents, lines and characters from each README."""

from __future__ import annotations

import gzip

import pytest

from tests.conftest import corpus_path
from tokstudy.data.rawtext import iter_sentences, read_raw_text
from tokstudy.errors import DataFormatError, DataNotFoundError

# lang: documents, documents with 2+ lines, lines, characters (line text, no newlines)
RAW_TEXT = {
    "en": (10000, 0, 10000, 1279942),
    "de": (10000, 0, 10000, 1214511),
    "fr": (10000, 0, 10000, 1221402),
    "ru": (10000, 0, 10000, 1073097),
    "ar": (10000, 0, 10000, 1157933),
    "es": (3375, 0, 3375, 552276),
    "zh": (1000, 0, 1000, 39257),
    "ja": (1050, 0, 1050, 41476),
    "eu": (260, 260, 7952, 989688),
    "sw": (256, 256, 7853, 931340),
}
# lang: documents, documents with 2+ lines, lines, characters of the file (newlines and blank lines included)
RAW_TEXT_LARGE = {
    "en": (252, 252, 19242, 4894147),
    "fr": (1230, 1227, 25929, 4876045),
    "es": (216, 216, 7763, 2382080),
    "it": (354, 353, 13390, 3058451),
    "de": (354, 353, 15155, 3171731),
    "ru": (144, 144, 14202, 2787869),
    "zh": (225, 222, 5965, 1502933),
    "ja": (189, 188, 19647, 1760163),
    "vi": (130, 129, 6968, 2314601),
    "el": (122, 120, 3883, 1685493),
    "uk": (133, 131, 7098, 1667367),
    "bn": (82, 82, 3010, 1139249),
    "mr": (305, 279, 8341, 1158768),
    "hy": (107, 94, 4546, 1668772),
}


def summary(docs):
    return (
        len(docs),
        sum(len(d.lines) > 1 for d in docs),
        sum(len(d.lines) for d in docs),
        sum(len(line) for d in docs for line in d.lines),
    )


@pytest.mark.parametrize("lang", list(RAW_TEXT))
def test_raw_text_counts(lang):
    docs = list(read_raw_text(corpus_path("raw_text") / f"{lang}.txt.gz"))
    assert summary(docs) == RAW_TEXT[lang]
    assert {d.language for d in docs} == {lang}


def test_raw_text_large_counts():
    root = corpus_path("raw_text_large")
    total_docs = total_lines = 0
    for lang, (n_docs, multi, n_lines, chars) in RAW_TEXT_LARGE.items():
        docs = list(read_raw_text(root / f"{lang}.txt.gz"))
        d, m, n, c = summary(docs)
        # the README counts characters of the whole file: each line and each document end with a newline
        assert (d, m, n, c + n + d) == (n_docs, multi, n_lines, chars), lang
        total_docs += d
        total_lines += n
    assert (total_docs, total_lines) == (3843, 155139)


def test_many_files_and_directories_in_order(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n\n\nthree\n")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress("  four  \n".encode()))
    (tmp_path / "README.md").write_text("not text\n")
    docs = list(read_raw_text(tmp_path))
    assert [d.lines for d in docs] == [("one", "two"), ("three",), ("four",)]
    assert [(d.line, d.language) for d in docs] == [(1, "a"), (5, "a"), (1, "b")]
    assert list(iter_sentences(tmp_path)) == ["one", "two", "three", "four"]


def test_streamed_not_read_whole(tmp_path):
    p = tmp_path / "big.txt"
    p.write_text("x\n\n" * 1000)
    it = read_raw_text(p)
    assert next(it).lines == ("x",)  # a generator: the first document comes before the file is done


def test_raw_text_bad_input(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nbad \xc3\x28 byte\n")
    with pytest.raises(DataFormatError, match=r"bad\.txt:2: invalid UTF-8"):
        list(read_raw_text(bad))
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(DataFormatError, match=r"empty\.txt: file is empty"):
        list(read_raw_text(empty))
    with pytest.raises(DataNotFoundError, match=r"missing\.txt: file not found"):
        list(read_raw_text(tmp_path / "missing.txt"))
