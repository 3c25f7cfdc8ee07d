"""``tokstudy pieces``: its figures equal seqeval and a recount on a hand-built file; bad input is one line naming
the file and line, with exit status 1 (2 for a bad option)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from seqeval.metrics import f1_score

from tests.conftest import corpus_path
from tests.fixtures_predictions import rule_predictions
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


def write_rule_pieces(path, corpus, n_sentences: int | None = None, metadata: dict | None = None):
    """The per-piece file of a model that makes :func:`rule_predictions`' mistakes on ``corpus`` (its first
    ``n_sentences``): a word of ``n`` characters has ``1 + n // 5`` pieces, each giving the rule's tag 0.8."""
    out, ids = rule_predictions(corpus)
    labels = tuple(sorted({t for _, gold, pred in out for t in (*gold, *pred)}))
    sentences = []
    for (words, gold, pred), sid in list(zip(out, ids))[:n_sentences]:
        predicted = []
        for w, g, p in zip(words, gold, pred):
            row = np.full(len(labels), 0.2 / (len(labels) - 1))
            row[labels.index(p)] = 0.8
            n = 1 + len(w) // 5
            predicted.append(PredictedWord(w, g, n, tuple(f"{w}{j}" for j in range(n)), np.tile(row, (n, 1))))
        sentences.append(PieceSentence(sid, tuple(predicted)))
    return write_piece_predictions(path, labels, sentences, metadata={"model_name": "rule", **(metadata or {})})


@pytest.fixture(scope="module")
def conll03():
    """CoNLL-2003 test, read from the shared data (skips when absent)."""
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    return load_dataset("conll2003", "test")


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
    with pytest.raises(SystemExit) as exit_:
        main(["pieces", str(tmp_path / "not-read.tsv"), "--csv", str(target)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.splitlines()[0]
    assert err == f"tokstudy pieces: error: argument --csv: cannot write {target}: {blocker} is a file, not a folder"


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


def test_with_a_dataset_each_file_is_checked_against_it_and_named(conll03, tmp_path, capsys):
    corpus_path("conll2002_es")
    meta = {"dataset": "conll2003", "split": "test", "language": "en"}
    path = write_rule_pieces(tmp_path / "c03.pieces.tsv", conll03, metadata=meta)
    out = tmp_path / "p.csv"
    assert main(["pieces", str(path), "-d", "conll2003:test", "--bootstrap", "0", "--csv", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "checked against conll2003:test" in printed and "| rule | conll2003:test | all |" in printed
    assert {r["dataset"] for r in csv.DictReader(out.open(encoding="utf-8"))} == {"conll2003:test"}
    # the same file for the Spanish CoNLL-2002 test split: one line naming the file, what it says and the split
    bad_out = tmp_path / "es.csv"
    assert main(["pieces", str(path), "-d", "conll2002_es:test", "--csv", str(bad_out)]) == 1
    err = capsys.readouterr().err.strip()
    # the lines before it are reading notes: the Spanish test split has a tag that lenient reading repairs
    [err] = [line for line in err.splitlines() if "error" in line]
    assert err.startswith("tokstudy pieces: error: ") and "Traceback" not in err
    said = f"{path} (it says dataset=conll2003 split=test language=en)"
    assert said in err and "dataset 'conll2002_es:test' has 1517" in err
    assert not bad_out.exists()


def test_with_a_dataset_a_file_short_of_its_declared_subset_is_refused(conll03, tmp_path, capsys):
    meta = {"dataset": "conll2003", "split": "test", "subset": "first:600"}
    path = write_rule_pieces(tmp_path / "short.pieces.tsv", conll03, 300, metadata=meta)
    assert main(["pieces", str(path), "--bootstrap", "0"]) == 0  # alone, the split might be that short
    capsys.readouterr()
    assert main(["pieces", str(path), "-d", "conll2003:test", "--bootstrap", "0"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "subset=first:600" in err and "300 predicted sentences but the first 600 sentences" in err
    assert "'conll2003:test'" in err
