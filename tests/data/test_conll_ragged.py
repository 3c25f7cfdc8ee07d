"""Lenient reading skips every line whose field count differs from the file's, and says how many and where
(issue 33 item 5): CoNLL-2002 Dutch as distributed has 112 lines in ``ned.testb`` whose word and part of speech
are fused (``Itali<0x81>EN B-LOC`` among ``word POS TAG`` lines), which no option could read.

The synthetic file reproduces that defect (Latin-1, the same fusion, 112 such lines among three-field lines);
the expected sentences come from an independent recount over the file's lines, not from the reader.
"""

from __future__ import annotations

import gzip
import random
import re

import pytest

from tokstudy.data.conll import read_conll
from tokstudy.data.repairs import RAGGED, SKIPPED, START
from tokstudy.datalocation import data_root
from tokstudy.errors import DataFormatError

FUSED = 112
POS = ("N", "V", "Prep", "Pron", "Adj", "Adv", "Art", "Punc", "Num", "Conj")
STEMS = ("Belgi", "Itali", "Picqu", "Walloni", "Kroati", "sportcoup", "Groot-Brittanni", "Australi")


def _dutch_like_lines(seed: int = 7) -> list[str]:
    """Sentences of ``word POS TAG`` lines (IOB2), documents opened by ``-DOCSTART- -DOCSTART- O``; then
    :data:`FUSED` word lines rewritten as the Dutch file has them: the accented last letter and the space after
    it became ``\\x81E``, so word and POS are one field (``Belgi\\x81EN B-LOC``)."""
    rng = random.Random(seed)
    lines: list[str] = []
    for s in range(420):
        if s % 30 == 0:
            lines += ["-DOCSTART- -DOCSTART- O"]
        tag = "O"
        for _ in range(rng.randint(2, 14)):
            if tag != "O" and rng.random() < 0.5:
                tag = "I-" + tag[2:]
            else:
                tag = rng.choice(("O", "O", "O", "B-LOC", "B-PER", "B-ORG", "B-MISC"))
            lines.append(f"w{rng.randint(0, 999)}{rng.choice('aeiouy')} {rng.choice(POS)} {tag}")
        lines.append("")
    words = [i for i, line in enumerate(lines) if line and not line.startswith("-DOCSTART-")]
    for i in rng.sample(words, FUSED):
        _, pos, tag = lines[i].split()
        lines[i] = f"{rng.choice(STEMS)}\x81E{pos} {tag}"
    return lines


def _recount(lines: list[str]):
    """Independently of the reader: the sentences of the three-field lines, with an ``I-X`` that continues no
    entity read as ``B-X``; the fused lines' numbers; and the numbers of those repaired tags."""
    sentences, words, tags = [], [], []
    fused, started = [], []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if len(fields) == 3 and fields[0] != "-DOCSTART-":
            tag = fields[2]
            if tag.startswith("I-") and (not tags or tags[-1][2:] != tag[2:]):
                tag = "B-" + tag[2:]
                started.append(number)
            words.append(fields[0]), tags.append(tag)
            continue
        if len(fields) == 2:
            fused.append(number)
            continue
        if words:
            sentences.append((tuple(words), tuple(tags)))
            words, tags = [], []
    if words:
        sentences.append((tuple(words), tuple(tags)))
    return sentences, fused, started


@pytest.fixture
def dutch_like(tmp_path):
    lines = _dutch_like_lines()
    path = tmp_path / "ned.testb"
    path.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    return path, lines


def test_lenient_reading_skips_the_112_fused_lines_and_says_where(dutch_like):
    path, lines = dutch_like
    sentences, fused, started = _recount(lines)
    assert len(fused) == FUSED and started  # some skipped B- tags leave an I- to repair, as in the Dutch file

    ds = read_conll(path, encoding="latin-1", lenient=True)
    assert [(s.words, s.tags) for s in ds] == sentences
    assert ds.n_words == sum(len(w) for w, _ in sentences) == len([x for x in lines if len(x.split()) == 3]) - 14
    log = ds.repair_log
    assert log.skipped == FUSED and log.counts == {START: len(started), RAGGED: FUSED}
    assert ds.metadata["skipped_lines"] == FUSED and ds.metadata["columns"] == 3
    assert ds.repaired == len(started)
    first = sorted(fused + started)[:10]
    assert [r.line for r in log.first] == first
    assert all(r.kind == (RAGGED if r.line in fused else START) for r in log.first)
    text = log.describe()
    assert text.startswith(f"{len(started)} tags repaired and 112 lines skipped in {path} (lenient reading):")
    assert "  112 x a line with more or fewer fields than the file's lines have" in text
    assert f"{path}:{fused[0]}: line {lines[fused[0] - 1]!r} skipped (2 fields)" in text
    assert text.endswith(f"  ... and {FUSED + len(started) - 10} more")
    assert log.to_dict()["by_kind"] == {START: len(started), RAGGED: FUSED}


def test_strict_reading_still_refuses_naming_file_and_line(dutch_like):
    path, lines = dutch_like
    _, fused, _ = _recount(lines)
    with pytest.raises(DataFormatError) as exc:
        read_conll(path, encoding="latin-1")
    message = str(exc.value)
    assert message.startswith(f"{path}:{fused[0]}: line has 2 columns, expected 3 as on line 2 and ")
    assert "lenient=True (--lenient) skips the lines whose column count differs from the file's" in message
    assert [int(n) for n in re.findall(rf"^  {re.escape(str(path))}:(\d+):", message, re.M)] == fused[1:20]
    assert message.rstrip().endswith(f"({FUSED} problems in all; the first 20 are shown)")
    with pytest.raises(DataFormatError, match=rf"ned\.testb:{fused[0]}: line has 2 columns"):
        read_conll(path, encoding="latin-1", lenient=False, skip_malformed=False)


def test_more_fields_and_single_fields_are_skipped_too_each_said_as_such(tmp_path):
    # a word holding a space (4 fields), a tag without its word (1 field), among three-field lines
    text = "EU NNP B-ORG\nrejects VBZ O\nNew York NNP B-LOC\nO\ncalls VBZ O\n\nPeter NNP B-PER\n"
    path = tmp_path / "mixed.conll"
    path.write_text(text, encoding="utf-8")
    ds = read_conll(path, scheme="IOB2", lenient=True)
    assert [s.words for s in ds] == [("EU", "rejects", "calls"), ("Peter",)]
    assert [s.tags for s in ds] == [("B-ORG", "O", "O"), ("B-PER",)]
    assert [(r.kind, r.line, r.tag) for r in ds.repair_log.first] == [
        (RAGGED, 3, "New York NNP B-LOC"),
        (SKIPPED, 4, "O"),
    ]
    assert ds.repair_log.describe().splitlines()[-2:] == [
        f"  {path}:3: line 'New York NNP B-LOC' skipped (4 fields)",
        f"  {path}:4: line 'O' skipped",
    ]
    # strict: both refused at their lines
    with pytest.raises(DataFormatError, match=r"mixed\.conll:3: line has 4 columns, expected 3"):
        read_conll(path, scheme="IOB2")


def test_a_word_after_a_skipped_line_keeps_its_own_line_in_messages(tmp_path):
    path = tmp_path / "f.conll"
    path.write_text("a N O\nbN B-LOC\nc N X-LOC\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"f\.conll:3: tag 'X-LOC'"):
        read_conll(path, scheme="IOB2", lenient=True)


def test_a_file_with_no_majority_count_is_refused_even_leniently(tmp_path):
    path = tmp_path / "no_count.conll"
    path.write_text("a N O\nb O\nc N O\nd O\ne N V O\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"only where most word lines have one count"):
        read_conll(path, lenient=True)


def test_a_clean_file_is_read_as_before(tmp_path):
    path = tmp_path / "clean.conll.gz"
    path.write_bytes(gzip.compress(b"EU NNP B-ORG\nrejects VBZ O\n\nPeter NNP B-PER\n"))
    strict, lenient = read_conll(path), read_conll(path, lenient=True)
    assert [(s.words, s.tags) for s in strict] == [(s.words, s.tags) for s in lenient]
    assert not lenient.repair_log and "skipped_lines" not in lenient.metadata


def test_the_real_dutch_test_split_read_leniently_counts_its_112_lines():
    """The distributed ``ned.testb`` (Latin-1), where the data location has it (``conll2002_nl/``); the counts
    are awk's over the same file (``NF == 2``: 112; ``NF == 3`` less the ``-DOCSTART-`` lines: 68,763 words)."""
    folder = data_root() / "conll2002_nl"
    path = next((p for p in (folder / "ned.testb", folder / "ned.testb.gz") if p.is_file()), None)
    if path is None:
        pytest.skip(
            f"CoNLL-2002 Dutch not at the data location ({folder}/ned.testb[.gz]); the synthetic tests cover it"
        )
    ds = read_conll(path, encoding="latin-1", lenient=True)
    assert ds.repair_log.skipped == ds.repair_log.counts[RAGGED] == 112
    assert (len(ds), ds.n_words) == (5195, 68763)
    with pytest.raises(DataFormatError, match=r"ned\.testb(\.gz)?:4: line has 2 columns, expected 3"):
        read_conll(path, encoding="latin-1")
