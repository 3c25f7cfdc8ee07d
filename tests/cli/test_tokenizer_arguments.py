"""``--tokenizer`` specs every command takes: ``tiktoken:NAME`` and ``.tiktoken`` files with ``--tiktoken-pattern``.

No network: a named encoding is put into tiktoken's own registry of loaded encodings (where
``tiktoken.get_encoding`` looks first), built from ranks trained here; the command then loads
``tiktoken:<that name>`` through the same ``get_encoding`` call as ``tiktoken:cl100k_base``.
"""

from __future__ import annotations

import base64
import json

import pytest

from tokstudy.cli import main
from tokstudy.tokenization.tiktoken_ import PATTERNS

tiktoken = pytest.importorskip("tiktoken")

TEXT = "The European Commission said on Thursday it disagreed with German advice . " * 5
CONLL = "EU B-ORG\nrejects O\nGerman B-MISC\ncall O\nto O\nboycott O\nBritish B-MISC\nlamb O\n. O\n\n"


@pytest.fixture(scope="module")
def ranks():
    from tiktoken._educational import bpe_train

    return bpe_train(TEXT, 300, PATTERNS["r50k"], visualise=None)


@pytest.fixture()
def named_encoding(ranks, monkeypatch):
    """``tiktoken:tokstudy_tiny`` resolves (offline) to an encoding of ``ranks`` with r50k's pattern."""
    enc = tiktoken.Encoding("tokstudy_tiny", pat_str=PATTERNS["r50k"], mergeable_ranks=ranks, special_tokens={})
    monkeypatch.setitem(tiktoken.registry.ENCODINGS, "tokstudy_tiny", enc)
    return enc


def _write_ranks(path, ranks):
    path.write_text(
        "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in sorted(ranks.items(), key=lambda x: x[1]))
    )
    return path


def _stats_json(tmp_path, *tokenizer_args) -> dict:
    data = tmp_path / "t.conll"
    data.write_text(CONLL)
    out = tmp_path / "s.json"
    argv = ["stats", "-d", str(data), *tokenizer_args, "--resamples", "0", "--json", str(out), "--no-progress"]
    assert main(argv) == 0
    return json.loads(out.read_text())


def test_tiktoken_name_is_loaded_not_looked_up_as_a_file(named_encoding, tmp_path):
    """``-t tiktoken:NAME`` was refused as 'tokenizer not found' before loading."""
    got = _stats_json(tmp_path, "-t", "tiktoken:tokstudy_tiny")
    assert "tokstudy_tiny" in json.dumps(got)
    named = _stats_json(tmp_path, "-t", "gpt=tiktoken:tokstudy_tiny")
    assert '"gpt"' in json.dumps(named)


@pytest.mark.parametrize("command", ["segment", "examples", "corpus-stats"])
def test_tiktoken_name_in_other_commands(named_encoding, tmp_path, command, capsys):
    data = tmp_path / "t.conll"
    data.write_text(CONLL)
    text = tmp_path / "en.txt"
    text.write_text(TEXT + "\n")
    argv = {
        "segment": ["segment", "-d", str(data), "--out", str(tmp_path / "s.csv")],
        "examples": ["examples", "-d", str(data), "--sentence", "0"],
        "corpus-stats": ["corpus-stats", "--corpus", str(text), "--processes", "1"],
    }[command]
    assert main([*argv, "-t", "tiktoken:tokstudy_tiny", "--no-progress"]) == 0, capsys.readouterr().err


def test_unknown_encoding_name_is_one_line_error(tmp_path, capsys):
    data = tmp_path / "t.conll"
    data.write_text(CONLL)
    assert main(["stats", "-d", str(data), "-t", "tiktoken:no_such_encoding", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "tiktoken:no_such_encoding" in err and "not found" not in err


def test_tiktoken_pattern_option_decides_the_pieces(ranks, tmp_path, capsys):
    """A file named after no encoding is refused without a pattern; ``--tiktoken-pattern`` gives it, in every command
    (the same figures as the sidecar would give)."""
    path = _write_ranks(tmp_path / "mine.tiktoken", ranks)
    data = tmp_path / "t.conll"
    data.write_text(CONLL)
    assert main(["stats", "-d", str(data), "-t", str(path), "--no-progress"]) == 1
    assert "mine.tiktoken: the pre-tokenizer pattern" in capsys.readouterr().err
    by_option = _stats_json(tmp_path, "-t", str(path), "--tiktoken-pattern", "r50k")
    path.with_name("mine.tiktoken.pattern").write_text("r50k\n")
    by_sidecar = _stats_json(tmp_path, "-t", str(path))
    assert by_option == by_sidecar
    text = tmp_path / "en.txt"
    text.write_text(TEXT + "\n")
    path.with_name("mine.tiktoken.pattern").unlink()
    argv = ["corpus-stats", "--corpus", str(text), "-t", str(path), "--processes", "1", "--no-progress"]
    assert main(argv) == 1
    assert "mine.tiktoken: the pre-tokenizer pattern" in capsys.readouterr().err
    assert main([*argv, "--tiktoken-pattern", r" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+"]) == 0


@pytest.mark.parametrize("command", ["stats", "segment", "corpus-stats"])
def test_help_lists_every_tokenizer_type(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for kind in (".tiktoken", "tiktoken:ENCODING", "tekken.json", "--tiktoken-pattern", "tokenizer.json"):
        assert kind in text, f"{command} --help lacks {kind}"
