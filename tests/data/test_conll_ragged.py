"""Lenient reading reads every line whose field count differs from the file's, and says how many and where:
CoNLL-2002 Dutch as distributed has 112 lines in ``ned.testb`` whose word and part of speech are fused
(``Itali<0x81>EN B-LOC`` among ``word POS TAG`` lines), 93 of them entity words. Such a line keeps its tag (its
last field) and its word, split from the part of speech where that is clear; what is not clear is skipped.

The synthetic file reproduces that defect (Latin-1, the same fusion, 112 such lines among three-field lines);
the expected sentences come from an independent recount over the file's lines, not from the reader: the word
of a fused line is its first field up to the ``<0x81>E`` that ate the space (the letter it stands for is lost).
"""

from __future__ import annotations

import gzip
import random
import re

import pytest

from tokstudy.data.conll import read_conll
from tokstudy.data.repairs import FUSED, RAGGED, SKIPPED
from tokstudy.data.textio import iter_lines
from tokstudy.datalocation import data_root
from tokstudy.errors import DataFormatError

N_FUSED = 112
POS = ("N", "V", "Prep", "Pron", "Adj", "Adv", "Art", "Punc", "Num", "Conj")
STEMS = ("Belgi", "Itali", "Picqu", "Walloni", "Kroati", "sportcoup", "Groot-Brittanni", "Australi")


def _dutch_like_lines(seed: int = 7) -> list[str]:
    """Sentences of ``word POS TAG`` lines (IOB2), documents opened by ``-DOCSTART- -DOCSTART- O``; then
    :data:`N_FUSED` word lines rewritten as the Dutch file has them: the accented last letter and the space after
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
    for i in rng.sample(words, N_FUSED):
        _, pos, tag = lines[i].split()
        lines[i] = f"{rng.choice(STEMS)}\x81E{pos} {tag}"
    return lines


def _recount(lines: list[str], *, keep_fused: bool = False):
    """Independently of the reader: the sentences of the three-field lines (and, with ``keep_fused``, of the
    fused ones: the word up to its ``\\x81E``, the tag last), with an ``I-X`` that continues no entity read as
    ``B-X``; the fused lines' numbers; and the numbers of those repaired tags."""
    sentences, words, tags = [], [], []
    fused, started = [], []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if len(fields) == 2 and keep_fused:
            fused.append(number)
            fields = [fields[0][: fields[0].rindex("\x81E") + 2], "?", fields[1]]
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


def test_lenient_reading_keeps_the_112_fused_lines_with_their_tags_and_says_where(dutch_like):
    path, lines = dutch_like
    sentences, fused, started = _recount(lines, keep_fused=True)
    assert len(fused) == N_FUSED and not started  # the file's tags are valid IOB2 once no B- line is dropped
    assert sum(t != "O" for n in fused for t in [lines[n - 1].split()[-1]]) > 20  # many fused words are entities

    ds = read_conll(path, encoding="latin-1", lenient=True)
    assert [(s.words, s.tags) for s in ds] == sentences
    assert ds.n_words == len([x for x in lines if len(x.split()) in (2, 3)]) - 14
    log = ds.repair_log
    assert (log.split, log.skipped, log.tags) == (N_FUSED, 0, 0) and log.counts == {FUSED: N_FUSED}
    assert ds.metadata["fused_lines"] == N_FUSED and "skipped_lines" not in ds.metadata
    assert ds.metadata["columns"] == 3 and ds.repaired == 0
    assert [r.line for r in log.first] == fused[:10] and all(r.kind == FUSED for r in log.first)
    text = log.describe()
    assert text.startswith(f"112 fused lines split in {path} (lenient reading):")
    assert "  112 x a word fused with its next column (one field fewer than the file's lines)" in text
    written = lines[fused[0] - 1]
    word = written[: written.index("\x81E") + 2]
    assert f"{path}:{fused[0]}: line {written!r} read as {word + ' ' + written[len(word) :]!r}" in text
    assert text.endswith(f"  ... and {N_FUSED - 10} more")
    assert log.to_dict()["by_kind"] == {FUSED: N_FUSED}


def test_a_fused_line_whose_split_is_not_clear_is_skipped_and_named(tmp_path):
    # 'EN' and 'N' are both parts of speech here, so 'Itali\x81EN' splits two ways; 'fooXYZ' ends in none
    text = "a N O\nb EN O\nItali\x81EN B-LOC\nc N O\nfooXYZ B-PER\nBelgi\x81EAdj B-LOC\nd Adj O\ne N O\n"
    path = tmp_path / "unclear.conll"
    path.write_bytes(text.encode("latin-1"))
    ds = read_conll(path, encoding="latin-1", scheme="IOB2", lenient=True)
    assert [(s.words, s.tags) for s in ds] == [
        (("a", "b", "c", "Belgi\x81E", "d", "e"), ("O", "O", "O", "B-LOC", "O", "O"))
    ]
    log = ds.repair_log
    assert log.counts == {FUSED: 1, RAGGED: 2} and (log.split, log.skipped) == (1, 2)
    assert [(r.kind, r.line) for r in log.first] == [(RAGGED, 3), (RAGGED, 5), (FUSED, 6)]
    assert log.describe().startswith(f"1 fused line split and 2 lines skipped in {path} (lenient reading):")


def test_a_fused_word_in_a_four_column_file_keeps_its_chunk_and_tag(tmp_path):
    """CoNLL-2003's layout: ``word POS chunk NER``; a word fused with its part of speech leaves three fields."""
    path = tmp_path / "eng.conll"
    path.write_text("EU NNP I-NP I-ORG\nrejects VBZ I-VP O\nGermanNNP I-NP I-MISC\ncall NN I-NP O\n", "utf-8")
    ds = read_conll(path, scheme="IOB1", lenient=True)
    assert [(s.words, s.tags) for s in ds] == [(("EU", "rejects", "German", "call"), ("B-ORG", "O", "B-MISC", "O"))]
    assert [(r.line, r.became) for r in ds.repair_log.first if r.kind == FUSED] == [(3, "German NNP I-NP I-MISC")]
    tagged = read_conll(path, label_column=2, scheme="IOB1", lenient=True)  # the chunk column, counted from 0
    assert tagged.sentences[0].tags == ("B-NP", "B-VP", "B-NP", "I-NP")


def test_strict_reading_still_refuses_naming_file_and_line(dutch_like):
    path, lines = dutch_like
    _, fused, _ = _recount(lines)
    with pytest.raises(DataFormatError) as exc:
        read_conll(path, encoding="latin-1")
    message = str(exc.value)
    assert message.startswith(f"{path}:{fused[0]}: line has 2 columns, expected 3 as on line 2 and ")
    assert "lenient=True (--lenient) skips the lines whose column count differs from the file's" in message
    assert [int(n) for n in re.findall(rf"^  {re.escape(str(path))}:(\d+):", message, re.M)] == fused[1:20]
    assert message.rstrip().endswith(f"({N_FUSED} problems in all; the first 20 are shown)")
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


@pytest.mark.parametrize("line", ["bX B-LOC", "B-LOC", "New York N B-LOC"])  # no part of speech ends 'bX'
def test_a_word_after_a_line_skipped_keeps_its_own_line_in_messages(tmp_path, line):
    path = tmp_path / "f.conll"
    path.write_text(f"a N O\n{line}\nc N X-LOC\n", encoding="utf-8")
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


def test_the_real_dutch_test_split_read_leniently_keeps_its_112_fused_lines():
    """The distributed ``ned.testb`` (Latin-1), where the data location has it (``conll2002_nl/``); the counts
    are awk's over the same file (``NF == 2``: 112, 93 of them with a tag other than ``O``; ``NF == 3`` less the
    ``-DOCSTART-`` lines: 68,763 words), the tags and words an independent reading of its lines."""
    folder = data_root() / "conll2002_nl"
    path = next((p for p in (folder / "ned.testb", folder / "ned.testb.gz") if p.is_file()), None)
    if path is None:
        pytest.skip(
            f"CoNLL-2002 Dutch not at the data location ({folder}/ned.testb[.gz]); the synthetic tests cover it"
        )
    ds = read_conll(path, encoding="latin-1", lenient=True)
    assert ds.repair_log.split == ds.repair_log.counts[FUSED] == 112 and ds.repair_log.skipped == 0
    assert (len(ds), ds.n_words) == (5195, 68763 + 112)
    fields = [line.split() for _, line in iter_lines(path, encoding="latin-1")]
    fields = [f for f in fields if f and f[0] != "-DOCSTART-"]
    assert [t for s in ds for t in s.tags] == [f[-1] for f in fields]  # IOB2 as written: every tag kept
    words = [f[0] if len(f) == 3 else f[0][: f[0].rindex("\x81E") + 2] for f in fields]
    assert [w for s in ds for w in s.words] == words
    assert sum(len(f) == 2 and f[-1] != "O" for f in fields) == 93
    with pytest.raises(DataFormatError, match=r"ned\.testb(\.gz)?:4: line has 2 columns, expected 3"):
        read_conll(path, encoding="latin-1")
