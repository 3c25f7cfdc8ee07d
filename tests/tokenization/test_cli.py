"""``tokstudy train-tokenizer`` end to end on a small real sample."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from tokstudy.cli import main, train_tokenizer
from tokstudy.tokenization import training


def test_help_is_understandable(capsys):
    with pytest.raises(SystemExit) as info:
        main(["train-tokenizer", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for text in ("--vocab-size", "--sample-size", "--algorithm", "AutoTokenizer", "Example:", "corpus names"):
        assert text in out


def test_algorithms_match_library():
    assert train_tokenizer.ALGORITHMS == training.ALGORITHMS


def test_train_by_corpus_name(tmp_path, capsys, monkeypatch):
    data_root = corpus_path("raw_text").parent
    rc = main(
        [
            "train-tokenizer",
            "--input",
            "raw_text",
            "--data-dir",
            str(data_root),
            "--vocab-size",
            "1500",
            "2000",
            "--algorithm",
            "sp-bpe",
            "--sample-size",
            "1500",
            "--seed",
            "2",
            "--output",
            str(tmp_path),
            "-q",
        ]
    )
    assert rc == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [l.split("\t")[0] for l in lines] == [str(tmp_path / "sp-bpe-1500"), str(tmp_path / "sp-bpe-2000")]
    assert (tmp_path / "sp-bpe-2000" / "spiece.model").is_file()


def test_unknown_corpus_is_a_clear_error(tmp_path, capsys):
    rc = main(
        [
            "train-tokenizer",
            "--input",
            "no_such_corpus",
            "--data-dir",
            str(tmp_path),
            "--vocab-size",
            "100",
            "--output",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 1
    assert "no_such_corpus" in capsys.readouterr().err


def test_help_shows_no_empty_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["train-tokenizer", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in out and "(default: False)" not in out
    assert "all cores" in out and "(default: 1000000)" in out


def test_missing_input_file_is_reported_as_a_missing_file(tmp_path, capsys):
    rc = main(
        [
            "train-tokenizer",
            "--input",
            str(tmp_path / "absent.txt.gz"),
            "--vocab-size",
            "100",
            "--output",
            str(tmp_path / "o"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 1 and "absent.txt.gz: no such raw-text file" in err and "corpus" not in err
    assert not (tmp_path / "o").exists()


def test_output_pointing_at_a_file_is_a_clean_error(tmp_path, capsys):
    src = corpus_path("raw_text") / "en.txt.gz"
    target = tmp_path / "taken"
    target.write_text("keep me")
    with pytest.raises(SystemExit) as exit_:
        main(["train-tokenizer", "--input", str(src), "--vocab-size", "100", "--output", str(target), "-q"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert (
        err.splitlines()[0]
        == f"tokstudy train-tokenizer: error: argument --output/-o: {target} is a file; expected a folder"
    )
    assert target.read_text() == "keep me"


def test_train_tokenizer_refuses_a_bad_value_as_a_usage_error(tmp_path, capsys):
    """A value argparse accepts but the config refuses (vocabulary size 0) exits 2 with one line, no traceback."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b c\n", encoding="utf-8")
    rc = main(["train-tokenizer", "--input", str(corpus), "--vocab-size", "0", "--output", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "tokstudy train-tokenizer: error: vocab_sizes must be positive integers" in err
    assert "Traceback" not in err and not (tmp_path / "o").exists()
