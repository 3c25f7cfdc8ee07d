"""CoNLL column reader: format handling, bad input named at its place, and real-corpus counts."""

from __future__ import annotations

import gzip
from collections import Counter

import pytest

from tests.conftest import corpus_path
from tokstudy.data.conll import read_conll
from tokstudy.errors import DataFormatError, DataNotFoundError, TagSchemeError


def write(tmp_path, name, text, *, gz=False, raw=False):
    p = tmp_path / name
    data = text if raw else text.encode("utf-8")
    p.write_bytes(gzip.compress(data) if gz else data)
    return p


def entity_counts(ds):
    return Counter(t for s in ds for _, _, t in s.entities())


# ---- format ------------------------------------------------------------------------------------


def test_docstart_blank_lines_columns_and_lines(tmp_path):
    p = write(
        tmp_path,
        "a.txt",
        "-DOCSTART- -X- -X- O\n\nEU NNP I-NP I-ORG\nrejects VBZ I-VP O\n\n"
        "Peter NNP I-NP I-PER\n\n-DOCSTART- -X- -X- O\n\nBonn NNP I-NP I-LOC\n",
    )
    ds = read_conll(p, name="t", language="en", split="train")
    assert [s.words for s in ds] == [("EU", "rejects"), ("Peter",), ("Bonn",)]
    assert [s.tags for s in ds] == [("B-ORG", "O"), ("B-PER",), ("B-LOC",)]
    assert [s.doc_id for s in ds] == [0, 0, 1]
    assert [s.sent_id for s in ds] == [0, 1, 2]
    assert [s.line for s in ds] == [3, 6, 10]
    assert (ds.name, ds.language, ds.split, ds.repaired) == ("t", "en", "train", 0)
    assert ds.metadata["scheme"] == "IOB1" and ds.metadata["columns"] == 4


def test_two_column_tab_gz_and_docstart_without_blank(tmp_path):
    p = write(tmp_path, "b.tsv.gz", "R.H.\tB-ORG\nSaunders\tI-ORG\n-DOCSTART-\tO\nx\tO\n", gz=True)
    ds = read_conll(p)
    assert [s.words for s in ds] == [("R.H.", "Saunders"), ("x",)]
    assert [s.doc_id for s in ds] == [0, 1]
    assert ds.name == "b.tsv.gz" and ds.metadata["scheme"] == "IOB2"


def test_label_column_and_explicit_scheme(tmp_path):
    p = write(tmp_path, "c.txt", "a S-PER x\nb O x\n\nc B-LOC x\nd E-LOC x\n")
    ds = read_conll(p, label_column=1)
    assert [s.tags for s in ds] == [("B-PER", "O"), ("B-LOC", "I-LOC")]
    assert ds.metadata["scheme"] == "IOBES"
    ds2 = read_conll(p, label_column=-2, scheme="bioes")
    assert [s.tags for s in ds2] == [s.tags for s in ds]


def test_docstart_off_reads_it_as_a_word(tmp_path):
    p = write(tmp_path, "d.txt", "-DOCSTART- O\na O\n")
    assert read_conll(p, docstart=False)[0].words == ("-DOCSTART-", "a")


def test_crlf_and_trailing_whitespace(tmp_path):
    p = write(tmp_path, "e.txt", "a B-PER \r\nb I-PER\r\n\r\n")
    assert read_conll(p)[0].tags == ("B-PER", "I-PER")


# ---- bad input: each names file and line -------------------------------------------------------


def test_ragged_columns(tmp_path):
    p = write(tmp_path, "r.txt", "a NN B-PER\nb NN O\n\nc O\n")
    with pytest.raises(DataFormatError, match=r"r\.txt:4: line has 2 columns, expected 3 as on line 1"):
        read_conll(p)


def test_tag_outside_scheme(tmp_path):
    p = write(tmp_path, "t.txt", "a B-PER\nb X-PER\n")
    with pytest.raises(TagSchemeError, match=r"t\.txt:2: tag 'X-PER' is outside the IOB2 scheme"):
        read_conll(p, scheme="IOB2")
    with pytest.raises(TagSchemeError, match=r"t\.txt:2: .*outside"):
        read_conll(p)  # auto


def test_forbidden_i_strict_and_lenient(tmp_path):
    p = write(tmp_path, "f.txt", "a B-PER\nb I-PER\n\nc O\nd I-LOC\n")
    with pytest.raises(TagSchemeError, match=r"f\.txt:5: tag 'I-LOC' at word 2 follows 'O'"):
        read_conll(p)
    ds = read_conll(p, lenient=True)
    assert ds.repaired == 1 and ds[1].tags == ("O", "B-LOC")


def test_invalid_utf8_names_line(tmp_path):
    p = write(tmp_path, "u.txt", b"a O\nb\xe9 O\n", raw=True)
    with pytest.raises(DataFormatError, match=r"u\.txt:2: invalid UTF-8"):
        read_conll(p)


def test_empty_and_blank_only_and_missing(tmp_path):
    with pytest.raises(DataFormatError, match=r"empty\.txt: file is empty"):
        read_conll(write(tmp_path, "empty.txt", ""))
    with pytest.raises(DataFormatError, match=r"blank\.txt: no word lines"):
        read_conll(write(tmp_path, "blank.txt", "\n\n-DOCSTART- O\n\n"))
    with pytest.raises(DataNotFoundError, match=r"nope\.txt: file not found"):
        read_conll(tmp_path / "nope.txt")


def test_one_column_and_bad_label_column(tmp_path):
    with pytest.raises(DataFormatError, match=r"o\.txt:1: line has 1 column"):
        read_conll(write(tmp_path, "o.txt", "a\nb\n"))
    with pytest.raises(DataFormatError, match=r"l\.txt:1: label_column=5"):
        read_conll(write(tmp_path, "l.txt", "a O\n"), label_column=5)


# ---- real corpora: counts from each README -----------------------------------------------------

CONLL2003 = {  # file: sentences, tokens, documents, PER, LOC, ORG, MISC, entities
    "eng.train.gz": (14041, 203621, 946, 6600, 7140, 6321, 3438, 23499),
    "eng.testa.gz": (3250, 51362, 216, 1842, 1837, 1341, 922, 5942),
    "eng.testb.gz": (3453, 46435, 231, 1617, 1668, 1661, 702, 5648),
}


@pytest.mark.parametrize("fname", list(CONLL2003))
def test_conll2003_counts(fname):
    ds = read_conll(corpus_path("conll2003") / fname)
    sents, toks, docs, per, loc, org, misc, ents = CONLL2003[fname]
    assert ds.metadata["scheme"] == "IOB1"
    assert (len(ds), ds.n_words, ds.n_documents, ds.n_entities) == (sents, toks, docs, ents)
    assert entity_counts(ds) == {"PER": per, "LOC": loc, "ORG": org, "MISC": misc}
    assert ds.label_set() == ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER", "I-PER"]
    assert "-DOCSTART-" not in {w for s in ds for w in s.words}


def test_conll2003_first_sentence_is_iob2():
    ds = read_conll(corpus_path("conll2003") / "eng.train.gz")
    assert ds[0].words[:3] == ("EU", "rejects", "German")
    assert ds[0].tags[:3] == ("B-ORG", "O", "B-MISC")
    assert ds[0].line == 3


CONLL2002 = {  # file: sentences, tokens, PER, LOC, ORG, MISC, line of the I-after-O tag
    "esp.train.gz": (8323, 264715, 4321, 4914, 7390, 2173, 221619),
    "esp.testa.gz": (1915, 52923, 1222, 985, 1700, 445, 30882),
    "esp.testb.gz": (1517, 51533, 735, 1084, 1400, 340, 9291),
}


@pytest.mark.parametrize("fname", list(CONLL2002))
def test_conll2002_es_strict_names_the_line_and_lenient_counts(fname):
    path = corpus_path("conll2002_es") / fname
    sents, toks, per, loc, org, misc, bad_line = CONLL2002[fname]
    with pytest.raises(TagSchemeError) as exc:
        read_conll(path)
    assert exc.value.line == bad_line and exc.value.path.endswith(fname)
    ds = read_conll(path, lenient=True)
    assert ds.repaired == 1 and ds.metadata["scheme"] == "IOB2"
    assert (len(ds), ds.n_words) == (sents, toks)
    assert entity_counts(ds) == {"PER": per, "LOC": loc, "ORG": org, "MISC": misc}
