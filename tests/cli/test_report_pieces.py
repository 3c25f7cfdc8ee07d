"""``tokstudy report --piece-predictions FILE[=NAME]``: the pieces section, the one the study shows
(:func:`tokstudy.report.assemble.pieces_section`), with the figures of ``tokstudy pieces`` on the same file; a
missing file is one line before any work."""

from __future__ import annotations

import json
import string

from tests.cli.test_pieces import LABELS, SENTENCES
from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
from tokstudy.analysis.model_errors.piece_predictions import read_piece_predictions, write_piece_predictions
from tokstudy.cli import main
from tokstudy.report.assemble import PIECES_TITLE, pieces_section
from tokstudy.report.result import read_table


def _inputs(tmp_path):
    vocab = tmp_path / "vocab.txt"
    chars = string.ascii_letters
    vocab.write_text("\n".join(["[PAD]", "[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
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
    want = piece_agreement(read_piece_predictions(pieces), n_resamples=0)
    [got] = json.loads((out / "pieces.json").read_text(encoding="utf-8"))
    assert got["model"] == "albert-8k" and (got["n_words"], got["n_disagree"]) == (want.n_words, want.n_disagree)
    assert "| albert-8k | majority |" in index
    # the same figures as `tokstudy pieces` prints for the file
    assert main(["pieces", f"{pieces}=albert-8k", "--bootstrap", "0"]) == 0
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
