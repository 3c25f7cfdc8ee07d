"""``tokstudy report --piece-predictions FILE[=NAME]``: the pieces section, the one the study shows
(:func:`tokstudy.report.assemble.pieces_section`), with the figures of ``tokstudy pieces`` on the same file; a
missing file is one line before any work."""

from __future__ import annotations

import json
import string

import pytest

from tests.cli.test_pieces import LABELS, SENTENCES, write_rule_pieces
from tests.conftest import corpus_path
from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
from tokstudy.analysis.model_errors.piece_predictions import read_piece_predictions, write_piece_predictions
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.cli import main
from tokstudy.report.assemble import PIECES_TITLE, pieces_section
from tokstudy.report.result import read_table


def _vocab(tmp_path):
    vocab = tmp_path / "vocab.txt"
    chars = string.ascii_letters
    vocab.write_text("\n".join(["[PAD]", "[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
    return vocab


def _inputs(tmp_path):
    vocab = _vocab(tmp_path)
    conll = tmp_path / "test.conll"
    conll.write_text("Peter B-PER\nBlackburn I-PER\n\nin O\nAntwerpen B-LOC\n\nsaid O\n", encoding="utf-8")
    pieces = write_piece_predictions(tmp_path / "m.pieces.tsv", LABELS, SENTENCES, metadata={"model_name": "tiny"})
    return [
        "report",
        "-d",
        str(conll),
        "-t",
        f"chars={vocab}",
        "--resamples",
        "0",
        "--no-progress",
        "--no-figures",
    ], pieces


def test_the_section_is_the_studys_with_the_figures_of_tokstudy_pieces(tmp_path, capsys):
    argv, pieces = _inputs(tmp_path)
    out = tmp_path / "rep"
    assert main(argv + ["--piece-predictions", f"{pieces}=albert-8k", "--out", str(out)]) == 0
    table = read_table(out, "pieces")
    index = (out / "index.md").read_text(encoding="utf-8")
    assert f"## {PIECES_TITLE}\n\n{pieces_section(table).body.strip()}" in index
    want = piece_agreement(read_piece_predictions(pieces), bootstrap=BootstrapSettings(0))
    [got] = json.loads((out / "pieces.json").read_text(encoding="utf-8"))
    assert got["model"] == "albert-8k" and (got["n_words"], got["n_disagree"]) == (want.n_words, want.n_disagree)
    assert "| albert-8k | test:test | majority |" in index  # the file checked against the report's dataset
    # the same figures as `tokstudy pieces` prints for the file checked against the same dataset
    assert main(["pieces", f"{pieces}=albert-8k", "--bootstrap", "0", "-d", argv[2]]) == 0
    printed = capsys.readouterr().out
    assert table.markdown in printed


def test_without_the_option_no_section_and_a_missing_file_is_one_line(tmp_path, capsys):
    argv, pieces = _inputs(tmp_path)
    assert main(argv + ["--out", str(tmp_path / "plain")]) == 0
    assert PIECES_TITLE not in (tmp_path / "plain" / "index.md").read_text(encoding="utf-8")
    assert not (tmp_path / "plain" / "pieces.json").exists()
    capsys.readouterr()
    missing = tmp_path / "none.pieces.tsv"
    assert main(argv + ["--piece-predictions", f"{missing}=m", "--out", str(tmp_path / "bad")]) == 1
    err = capsys.readouterr().err
    assert f"--piece-predictions {missing}: file not found" in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists()


@pytest.fixture(scope="module")
def conll03():
    """CoNLL-2003 test, read from the shared data (skips when absent)."""
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    return load_dataset("conll2003", "test")


def _real_report(tmp_path, dataset: str, pieces, out):
    argv = ["report", "-d", dataset, "-t", f"chars={_vocab(tmp_path)}", "--resamples", "0", "--no-progress"]
    return main(argv + ["--no-figures", "--piece-predictions", f"{pieces}=rule", "--out", str(out)])


def _error_line(capsys) -> str:
    """The one error line on stderr (beside it: reading notes and warnings about unknown pieces)."""
    [line] = [t for t in capsys.readouterr().err.splitlines() if "error" in t]
    assert line.startswith("tokstudy report: error: ")
    return line


def test_a_file_for_another_dataset_is_refused_in_one_line(conll03, tmp_path, capsys):
    corpus_path("conll2002_es")
    meta = {"dataset": "conll2003", "split": "test", "language": "en"}
    pieces = write_rule_pieces(tmp_path / "c03.pieces.tsv", conll03, metadata=meta)
    out = tmp_path / "es"
    assert _real_report(tmp_path, "conll2002_es:test", pieces, out) == 1
    err = _error_line(capsys)
    assert f"{pieces} (it says dataset=conll2003 split=test language=en)" in err
    assert "dataset 'conll2002_es:test' has 1517" in err
    assert not out.exists()


def test_a_file_short_of_its_declared_subset_is_refused(conll03, tmp_path, capsys):
    meta = {"dataset": "conll2003", "split": "test", "subset": "first:600"}
    pieces = write_rule_pieces(tmp_path / "short.pieces.tsv", conll03, 300, metadata=meta)
    out = tmp_path / "short"
    assert _real_report(tmp_path, "conll2003:test", pieces, out) == 1
    err = _error_line(capsys)
    assert f"{pieces} (it says dataset=conll2003 split=test subset=first:600)" in err
    assert "300 predicted sentences but the first 600 sentences of dataset 'conll2003:test'" in err
    assert not out.exists()


def test_the_section_names_the_dataset_and_the_part_a_file_covers(conll03, tmp_path, capsys):
    meta = {"dataset": "conll2003", "split": "test", "subset": "first:600"}
    pieces = write_rule_pieces(tmp_path / "cut.pieces.tsv", conll03, 600, metadata=meta)
    out = tmp_path / "rep"
    assert _real_report(tmp_path, "conll2003:test", pieces, out) == 0
    named = "checked against conll2003:test"
    part = "rule covers the first 600 of 3453 sentences of conll2003:test"
    for page in ("index.md", "index.html"):
        text = (out / page).read_text(encoding="utf-8")
        section = text[text.index(PIECES_TITLE) :]
        assert named in section and part in section, page
    assert "| rule | conll2003:test | majority |" in (out / "index.md").read_text(encoding="utf-8")
    [got] = json.loads((out / "pieces.json").read_text(encoding="utf-8"))
    assert (got["dataset"], got["subset"]) == ("conll2003:test", "first 600 of 3453 sentences")
    assert got["n_words"] == sum(len(s.words) for s in conll03.sentences[:600])
