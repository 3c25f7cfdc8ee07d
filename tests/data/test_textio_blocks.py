"""Block-wise decoding in iter_lines gives exactly the per-line result, and errors keep their line."""

from __future__ import annotations

import gzip
import io
import random

import pytest

from tokstudy.data import textio
from tokstudy.errors import DataFormatError


def _reference(raw: bytes) -> list[tuple[int, str]]:
    """Python's own universal newlines (LF, CRLF, lone CR) over the decoded text, BOM dropped."""
    text = raw.decode("utf-8-sig")
    return [(i, line.rstrip("\n")) for i, line in enumerate(io.StringIO(text, newline=None), 1)]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 22])
@pytest.mark.parametrize("gz", [False, True])
def test_same_lines_for_any_block_size(tmp_path, monkeypatch, block, gz):
    rng = random.Random(block)
    words = ["é", "Жук", "東京", "a", "", "x\r", "\ufeffbom"]
    raw = "\ufeff" + "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(0, 5))) for _ in range(300))
    raw = raw.encode() + (b"\n" if block % 2 else b"")  # with and without a final newline
    path = tmp_path / ("f.txt.gz" if gz else "f.txt")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    monkeypatch.setattr(textio, "_BLOCK", block)
    assert list(textio.iter_lines(path)) == _reference(raw)


@pytest.mark.parametrize("block", [5, 1 << 22])
def test_invalid_utf8_line_is_named_in_later_blocks(tmp_path, monkeypatch, block):
    raw = b"".join(b"line %d\n" % i for i in range(1, 50)) + b"bad \xff here\n" + b"after\n"
    path = tmp_path / "bad.txt"
    path.write_bytes(raw)
    monkeypatch.setattr(textio, "_BLOCK", block)
    with pytest.raises(DataFormatError, match=r"bad.txt:50: invalid UTF-8"):
        list(textio.iter_lines(path))
