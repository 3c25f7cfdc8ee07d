"""Byte-range partitions read every line exactly once, with its offset, whatever the cut (against textio)."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tokstudy.analysis.corpus.partitions import corpus_files, iter_partition_lines, plan_partitions
from tokstudy.data.textio import iter_lines
from tokstudy.errors import DataFormatError, DataNotFoundError

LINE = st.text(alphabet=st.sampled_from(list("ab é漢 \t\r")), max_size=12)


def expected(path):
    """(offset, line) of non-blank lines, from tokstudy.data.textio (independent of the range reader).

    textio ends lines at LF, CRLF and a lone CR; the offsets of its lines are found here by scanning the bytes.
    """
    data = path.read_bytes()
    starts, i = [0], 0
    while i < len(data):
        if data[i : i + 1] == b"\r" and data[i + 1 : i + 2] == b"\n":
            i += 1
        if data[i : i + 1] in (b"\r", b"\n"):
            starts.append(i + 1)
        i += 1
    texts = [text for _, text in iter_lines(path, allow_empty=True)]
    return [(offset, text) for offset, text in zip(starts, texts) if text.strip()]


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(LINE, min_size=1, max_size=30), n=st.integers(1, 9), final_newline=st.booleans())
@example(lines=[""], n=3, final_newline=False)  # an empty file cut in three (once gave two ranges)
def test_any_cut_reads_each_line_once(tmp_path_factory, lines, n, final_newline):
    path = tmp_path_factory.mktemp("p") / "xx.txt"
    path.write_bytes(("\n".join(lines) + ("\n" if final_newline else "")).encode("utf-8"))
    parts = plan_partitions([(path, "xx.txt")], n_partitions=n)
    assert len(parts) == n and parts[0].start == 0 and parts[-1].end == path.stat().st_size
    got = [item for p in parts for item in iter_partition_lines(p)]
    want = expected(path)
    assert [o for o, _ in got] == [o for o, _ in want]
    assert [t.split() for _, t in got] == [t.split() for _, t in want]  # words are what is counted


def test_gzip_file_is_one_partition_and_offsets_are_decompressed(tmp_path):
    plain = tmp_path / "en.txt"
    plain.write_text("\ufeffone two\n\nthree\n", encoding="utf-8")
    gz = tmp_path / "de.txt.gz"
    with gzip.open(gz, "wb") as fh:
        fh.write(plain.read_bytes())
    parts = plan_partitions(corpus_files(tmp_path), n_partitions=4)
    assert [(p.key, p.language) for p in parts if p.key == "de.txt.gz"] == [("de.txt.gz", "de")]
    assert len(parts) == 4
    by_key = {}
    for p in parts:
        by_key.setdefault(p.key, []).extend(iter_partition_lines(p))
    assert by_key["de.txt.gz"] == by_key["en.txt"] == [(0, "one two"), (12, "three")]  # BOM 3 bytes + 8 + 1
    assert [p.key for p in plan_partitions(corpus_files(tmp_path), languages=["en"])] == ["en.txt"]


def test_invalid_utf8_names_file_and_line_from_any_range(tmp_path):
    path = tmp_path / "xx.txt"
    path.write_bytes(b"ok\n" * 50 + b"bad \xff here\n" + b"ok\n" * 50)
    parts = plan_partitions([(path, "xx.txt")], n_partitions=4)
    errors = []
    for p in parts:
        try:
            list(iter_partition_lines(p))
        except DataFormatError as exc:
            errors.append(exc)
    assert len(errors) == 1 and errors[0].line == 51 and errors[0].path == str(path)


def test_missing_corpus(tmp_path):
    with pytest.raises(DataNotFoundError):
        corpus_files(tmp_path / "nothing")
    with pytest.raises(DataNotFoundError, match="no corpus files"):
        corpus_files(tmp_path)


@pytest.mark.parametrize(
    "name",
    [
        "tokstudy.analysis.corpus.partitions",
        "tokstudy.analysis.corpus.counts",
        "tokstudy.analysis.corpus.figures",
        "tokstudy.analysis.corpus.gc_pause",
    ],
)
def test_doctests(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_empty_files_still_get_the_partitions_asked_for(tmp_path, n):
    """Found by the property above: with only empty files the ranges have no sizes to be shared by."""
    files = [(tmp_path / name, name) for name in ("a.txt", "b.txt")]
    for path, _ in files:
        path.write_bytes(b"")
    parts = plan_partitions(files, n_partitions=max(n, 2))
    assert len(parts) == max(n, 2) and all(p.start == p.end == 0 for p in parts)
    assert [item for p in parts for item in iter_partition_lines(p)] == []
