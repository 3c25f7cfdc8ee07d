"""Predictions files: round trip, conlleval lines, errors that name file and line."""

from __future__ import annotations

import gzip
import os

import pytest

from tokstudy.analysis.model_errors.predictions import read_predictions, write_predictions
from tokstudy.errors import DataFormatError

SENTS = [
    (["EU", "rejects", "German", "call"], ["B-ORG", "O", "B-MISC", "O"], ["B-ORG", "O", "B-LOC", "O"]),
    (["Peter", "Blackburn"], ["B-PER", "I-PER"], ["B-PER", "O"]),
    (["New York"], ["B-LOC"], ["B-LOC"]),  # a word with a space survives the tab format
]


def test_round_trip_with_metadata_and_sent_ids(tmp_path):
    path = tmp_path / "sub" / "preds.tsv"
    meta = {"dataset": "conll2003", "split": "test", "language": "en", "model": "albert 32k", "seed": 3}
    write_predictions(path, SENTS, metadata=meta, sent_ids=[10, 11, 12])
    preds = read_predictions(path)
    assert preds.metadata == {k: str(v) for k, v in meta.items()}
    assert [s.sent_id for s in preds] == [10, 11, 12]
    for got, (w, g, p) in zip(preds, SENTS):
        assert got.words == tuple(w) and got.gold == tuple(g) and got.pred == tuple(p)
    assert preds.n_words == 7
    assert preds.sentences[0].line is not None
    # nothing but the final file is left behind (atomic write via a temp file)
    assert os.listdir(path.parent) == ["preds.tsv"]


def test_default_sent_ids_are_positions(tmp_path):
    path = write_predictions(tmp_path / "p.tsv", SENTS[:2])
    assert [s.sent_id for s in read_predictions(path)] == [0, 1]


def test_reads_conlleval_lines_and_skips_docstart(tmp_path):
    text = (
        "-DOCSTART- -X- -X- O\n\n"
        "EU NNP B-NP B-ORG B-ORG\nrejects VBZ B-VP O O\n\n"
        "Peter NNP B-NP B-PER B-PER\nBlackburn NNP I-NP I-PER O\n\n"
    )
    path = tmp_path / "conlleval.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)
    preds = read_predictions(path)
    assert [s.words for s in preds] == [("EU", "rejects"), ("Peter", "Blackburn")]
    assert preds.sentences[1].gold == ("B-PER", "I-PER") and preds.sentences[1].pred == ("B-PER", "O")
    assert preds.metadata == {}


def test_metadata_several_pairs_on_one_line(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("# dataset=conll2003 split=test\n\nEU\tB-ORG\tO\n", encoding="utf-8")
    preds = read_predictions(path)
    assert preds.metadata == {"dataset": "conll2003", "split": "test"}


def test_wrong_column_count_names_file_and_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("# sent_id = 0\nEU\tB-ORG\tB-ORG\nrejects\tO\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_predictions(path)
    assert f"{path}:3:" in str(err.value) and "3 tab-separated columns" in str(err.value)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.txt", "EU B-ORG B-ORG\nrejects O\n", r"bad.txt:2: expected at least 3 columns"),
        ("bad.tsv", "# sent_id = x\nEU\tO\tO\n", r"bad.tsv:1: sent_id 'x'"),
        ("empty.tsv", "# model=x\n\n", "no predicted words"),
    ],
    ids=["too-few-conlleval-columns", "bad-sent-id", "empty"],
)
def test_bad_file_is_refused_with_its_place(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFormatError, match=message):
        read_predictions(path)


def test_writer_rejects_ragged_sentence_and_leaves_no_file(tmp_path):
    path = tmp_path / "p.tsv"
    with pytest.raises(ValueError, match="sentence 1"):
        write_predictions(path, [SENTS[0], (["a", "b"], ["O"], ["O", "O"])])
    assert not path.exists() and os.listdir(tmp_path) == []


def test_words_with_hash_tab_newline_and_backslash_round_trip(tmp_path):
    # issue 15 item 4: '#' words (MasakhaNER, social media) were read back as comments
    words = ["#EndSARS", "# sent_id = 3", "a\tb", "x\ny\rz", "C:\\new", "\\t", "-DOCSTART-"]
    path = write_predictions(tmp_path / "p.tsv", [(words, ["O"] * 7, ["B-PER"] + ["O"] * 6)])
    assert read_predictions(path).sentences[0].words == tuple(words)


def test_writer_rejects_a_tag_outside_iob2(tmp_path):
    with pytest.raises(ValueError, match="not an IOB2 tag"):
        write_predictions(tmp_path / "p.tsv", [(["a"], ["O"], ["B-"])])


@pytest.mark.parametrize("tag", ["FOO", "B-", "S-LOC", "PER"])
def test_reader_refuses_predicted_tags_outside_the_scheme(tmp_path, tag):
    path = tmp_path / "p.tsv"
    path.write_text(f"EU\tB-ORG\tB-ORG\nrejects\tO\t{tag}\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=rf"p.tsv:2: predicted tag '{tag}' outside the IOB2 scheme"):
        read_predictions(path)


def test_up_to_20_bad_lines_are_listed_with_the_total(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("".join(f"w{i}\tO\tFOO\n" for i in range(25)), encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_predictions(path)
    text = str(err.value)
    assert text.startswith(f"{path}:1: predicted tag 'FOO'") and f"{path}:20:" in text and f"{path}:21:" not in text
    assert err.value.total == 25 and "25 problems in all; the first 20 are shown" in text


def test_conlleval_hashtag_word_is_a_word_not_a_comment(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("#hashtag NN O B-MISC\nrocks VBZ O O\n", encoding="utf-8")
    assert read_predictions(path).sentences[0].words == ("#hashtag", "rocks")


def test_written_file_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        path = write_predictions(tmp_path / "p.tsv", SENTS)
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == 0o640
