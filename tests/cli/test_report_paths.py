"""Reports are shared: nothing ``tokstudy report`` writes names a file by an absolute path (issue 24 item 7)."""

from __future__ import annotations

import string

from tests.conftest import PROJECT_ROOT
from tests.fixtures_predictions import write_rule_predictions
from tokstudy.cli import main
from tokstudy.data.conll import read_conll


def _conll(path, seed: int) -> None:
    import random

    rng = random.Random(seed)
    sentences = []
    for _ in range(60):
        words = ["".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, 9))) for _ in range(8)]
        sentences.append("\n".join(f"{w} {rng.choice(['O', 'O', 'B-PER', 'B-LOC'])}" for w in words))
    path.write_text("\n\n".join(sentences) + "\n", encoding="utf-8")


def test_report_files_name_no_absolute_path(tmp_path, monkeypatch, capsys):
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    chars = string.ascii_letters
    vocab = inputs / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
    _conll(inputs / "test.conll", 1)
    _conll(inputs / "train.conll", 2)
    write_rule_predictions(inputs / "pred.tsv", read_conll(inputs / "test.conll", name="test"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # every input is outside the working directory and given absolutely
    monkeypatch.delenv("TOKSTUDY_DATA", raising=False)
    out = tmp_path / "rep"
    argv = ["report", "-d", inputs / "test.conll", "-t", f"chars={vocab}", "-p", inputs / "pred.tsv"]
    argv += ["--train-dataset", inputs / "train.conll", "--out", out, "--resamples", "20", "--no-progress"]
    assert main([str(a) for a in argv]) == 0
    capsys.readouterr()
    written = [p for p in out.rglob("*") if p.is_file()]
    assert len(written) > 20
    roots = {str(tmp_path), str(tmp_path.resolve()), str(PROJECT_ROOT)}
    for path in written:
        data = path.read_bytes()
        for root in roots:
            assert root.encode() not in data, f"{path.relative_to(out)} names {root}"
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "../inputs/train.conll" in index  # named relative to the working directory instead
