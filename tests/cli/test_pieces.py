"""``tokstudy pieces``: its figures equal seqeval and a recount on a hand-built file; bad input is one line naming
the file and line, with exit status 1 (2 for a bad option)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from seqeval.metrics import f1_score

from tokstudy.analysis.model_errors.piece_predictions import PieceSentence, PredictedWord, write_piece_predictions
from tokstudy.cli import main

LABELS = ("O", "B-PER", "I-PER", "B-LOC")


def _word(word, gold, *rows):
    probs = np.array(rows, dtype=float)
    return PredictedWord(word, gold, len(rows), tuple(f"{word}{j}" for j in range(len(rows))), probs)


#: three sentences; the pieces of "Blackburn" and "Antwerpen" disagree
SENTENCES = [
    PieceSentence(
        0,
        (
            _word("Peter", "B-PER", [0.1, 0.8, 0.05, 0.05]),
            _word("Blackburn", "I-PER", [0.1, 0.1, 0.7, 0.1], [0.6, 0.1, 0.2, 0.1], [0.65, 0.15, 0.1, 0.1]),
        ),
    ),
    PieceSentence(
        1, (_word("in", "O", [0.9, 0.05, 0.03, 0.02]), _word("Antwerpen", "B-LOC", [0.4, 0, 0, 0.6], [0.9, 0, 0, 0.1]))
    ),
    PieceSentence(2, (_word("said", "O", [0.7, 0.1, 0.1, 0.1], [0.8, 0.1, 0.05, 0.05]),)),
]
#: word tags per aggregation, worked out by hand
EXPECTED = {
    "first": [["B-PER", "I-PER"], ["O", "B-LOC"], ["O"]],
    "average": [["B-PER", "O"], ["O", "O"], ["O"]],
    "max": [["B-PER", "I-PER"], ["O", "O"], ["O"]],
    "majority": [["B-PER", "O"], ["O", "B-LOC"], ["O"]],  # Antwerpen: one piece each, the first piece wins
}


@pytest.fixture
def pieces_file(tmp_path):
    return write_piece_predictions(tmp_path / "m.pieces.tsv", LABELS, SENTENCES, metadata={"model_name": "tiny"})


def test_figures_equal_seqeval_and_a_hand_count(pieces_file, tmp_path, capsys):
    out_csv, out_json = tmp_path / "p.csv", tmp_path / "p.json"
    assert main(["pieces", str(pieces_file), "--bootstrap", "0", "--csv", str(out_csv), "--json", str(out_json)]) == 0
    printed = capsys.readouterr().out
    assert "5 words, 3 sentences" in printed and "**Pieces that disagree.**" in printed
    rows = {r["aggregation"]: r for r in csv.DictReader(out_csv.open(encoding="utf-8"))}
    gold = [["B-PER", "I-PER"], ["O", "B-LOC"], ["O"]]
    for method, tags in EXPECTED.items():
        assert float(rows[method]["F1"]) == pytest.approx(f1_score(gold, tags), abs=1e-4)
        errors = sum(p != g for ps, gs in zip(tags, gold) for p, g in zip(ps, gs))
        assert int(rows[method]["word errors"]) == errors
    first = rows["first"]
    assert (first["model"], first["multi-piece"], first["disagree"]) == ("tiny", "3", "2")
    assert float(first["error rate, agree"]) == 0.0  # Peter, in, said: right under every aggregation
    assert float(rows["average"]["error rate, pieces disagree"]) == 1.0
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data[0]["n_disagree"] == 2 and [a["method"] for a in data[0]["aggregations"]] == list(EXPECTED)


def test_a_name_after_the_file_names_the_model(pieces_file, capsys):
    assert main(["pieces", f"{pieces_file}=albert-8k", "--bootstrap", "0"]) == 0
    assert "| albert-8k | first |" in capsys.readouterr().out


def test_bad_file_is_one_line_naming_file_and_line(pieces_file, capsys):
    lines = pieces_file.read_text(encoding="utf-8").splitlines()
    lines[5] += "\textra"
    pieces_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["pieces", str(pieces_file)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert f"{pieces_file}:6" in err and "columns" in err and "Traceback" not in err


def test_a_word_predictions_file_is_refused_with_what_was_expected(tmp_path, capsys):
    path = tmp_path / "words.tsv"
    path.write_text("# tokstudy-predictions escapes=backslash\nEU\tB-ORG\tB-ORG\n", encoding="utf-8")
    assert main(["pieces", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1" in err and "per-piece predictions" in err


def test_help_and_usage_errors(pieces_file, capsys):
    with pytest.raises(SystemExit):
        main(["pieces", "--help"])
    assert "majority" in capsys.readouterr().out
    assert main(["pieces", str(pieces_file), "--bootstrap", "-1"]) == 2
    assert "--bootstrap -1" in capsys.readouterr().err


def test_an_unwritable_output_is_one_line_before_any_work(pieces_file, tmp_path, capsys):
    blocker = tmp_path / "results"
    blocker.write_text("a file where a folder is expected\n")
    target = blocker / "sub" / "p.csv"
    assert main(["pieces", str(tmp_path / "not-read.tsv"), "--csv", str(target)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"tokstudy pieces: error: {blocker}: is a file, not a folder, so --csv {target} cannot be written"


def test_files_are_written_when_the_reader_leaves_first(pieces_file, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "p.csv"
    cmd = [sys.executable, "-m", "tokstudy", "pieces", str(pieces_file), "--bootstrap", "0", "--csv", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader leaves before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err
    assert "Traceback" not in err
    assert len(list(csv.DictReader(out.open(encoding="utf-8")))) == len(EXPECTED)
