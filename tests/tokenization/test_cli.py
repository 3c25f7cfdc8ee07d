"""``tokstudy train-tokenizer`` end to end on a small real sample."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from tokstudy.cli import main
from tokstudy.tokenization import training
from tokstudy.cli import train_tokenizer


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
    rc = main(["train-tokenizer", "--input", "raw_text", "--data-dir", str(data_root), "--vocab-size", "1500", "2000",
               "--algorithm", "sp-bpe", "--sample-size", "1500", "--seed", "2", "--output", str(tmp_path), "-q"])
    assert rc == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [l.split("\t")[0] for l in lines] == [str(tmp_path / "sp-bpe-1500"), str(tmp_path / "sp-bpe-2000")]
    assert (tmp_path / "sp-bpe-2000" / "spiece.model").is_file()


def test_unknown_corpus_is_a_clear_error(tmp_path, capsys):
    rc = main(["train-tokenizer", "--input", "no_such_corpus", "--data-dir", str(tmp_path), "--vocab-size", "100",
               "--output", str(tmp_path / "o")])
    assert rc == 1
    assert "no_such_corpus" in capsys.readouterr().err
