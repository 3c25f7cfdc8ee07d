"""Reading a per-piece predictions file: one bad line is one error naming the file and line (the word's later
pieces do not repeat it), the pieces of one word agree on the word, its gold tag and its number of pieces, and
a file that declares a subset of fewer sentences than it holds is refused."""

from __future__ import annotations

import numpy as np
import pytest

from tokstudy.analysis.model_errors.piece_predictions import (
    PieceSentence,
    PredictedWord,
    read_piece_predictions,
    write_piece_predictions,
)
from tokstudy.errors import AlignmentError, DataFormatError

LABELS = ("O", "B-PER", "I-PER", "B-LOC")


def _word(word: str, gold: str, n: int) -> PredictedWord:
    probs = np.tile([0.1, 0.2, 0.3, 0.4], (n, 1))
    return PredictedWord(word, gold, n, tuple(f"{word}{j}" for j in range(n)), probs)


#: sentence 0: Blackburn has three pieces (lines 6-8); sentence 1: Antwerpen two (lines 10-11)
SENTENCES = [
    PieceSentence(0, (_word("Peter", "B-PER", 1), _word("Blackburn", "I-PER", 3))),
    PieceSentence(1, (_word("in", "O", 1), _word("Antwerpen", "B-LOC", 2))),
]


def _file(tmp_path, line: int, edit):
    """The file of :data:`SENTENCES` (line 3 its metadata, line 4 the header) with its (1-based) ``line`` passed
    through ``edit`` (tab-separated fields in and out for a piece line, the text for the others)."""
    path = write_piece_predictions(tmp_path / "p.pieces.tsv", LABELS, SENTENCES, metadata={"model_name": "tiny"})
    lines = path.read_text(encoding="utf-8").splitlines()
    text = lines[line - 1]
    lines[line - 1] = "\t".join(edit(text.split("\t"))) if line > 4 else edit(text)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _set(column: int, value: str):
    return lambda fields: fields[:column] + [value] + fields[column + 1 :]


@pytest.mark.parametrize(
    "line, edit, message",
    [
        (6, _set(7, "B-FOO"), "label 'B-FOO'"),  # the first of Blackburn's three pieces
        (6, _set(9, "0.5 0.5 0.5 0.5"), "sum to 2"),
        (6, _set(2, "Blackburm"), "word 'Blackburn'"),  # its later pieces name the word otherwise
        (7, _set(5, "2"), "piece 2"),  # a piece out of order
        (6, lambda f: f + ["extra"], "columns"),
        (4, lambda text: text.replace("n_pieces", "pieces"), "header line"),
    ],
)
def test_one_bad_line_is_one_error_naming_the_file_and_line(tmp_path, line, edit, message):
    path = _file(tmp_path, line, edit)
    with pytest.raises(DataFormatError, match=message) as info:
        read_piece_predictions(path)
    err = info.value
    assert (err.path, err.total, err.others) == (str(path), 1, ()), str(err)
    assert str(err).startswith(f"{path}:") and "problems in all" not in str(err)


def test_a_first_line_of_another_format_is_one_error(tmp_path):
    path = _file(tmp_path, 1, lambda text: "# tokstudy-predictions escapes=backslash")
    with pytest.raises(DataFormatError, match="per-piece predictions") as info:
        read_piece_predictions(path)
    assert (info.value.line, info.value.total) == (1, 1)


@pytest.mark.parametrize(
    "column, value, what",
    [(4, "2", "n_pieces 2"), (3, "B-PER", "gold 'B-PER'")],
)
def test_the_pieces_of_one_word_agree_on_its_number_of_pieces_and_gold(tmp_path, column, value, what):
    # the second piece of Blackburn (line 7) disagrees with its first (line 6)
    path = _file(tmp_path, 7, _set(column, value))
    with pytest.raises(DataFormatError, match=what) as info:
        read_piece_predictions(path)
    assert (info.value.line, info.value.total) == (7, 1) and "line 6" in str(info.value)
    # the last piece disagreeing is refused as well (no later line repeats it)
    path = _file(tmp_path, 8, _set(column, value))
    with pytest.raises(DataFormatError, match=what) as info:
        read_piece_predictions(path)
    assert (info.value.line, info.value.total) == (8, 1)


def test_several_bad_lines_of_different_words_are_each_reported(tmp_path):
    path = write_piece_predictions(tmp_path / "p.tsv", LABELS, SENTENCES, metadata={"model_name": "tiny"})
    lines = path.read_text(encoding="utf-8").splitlines()
    for k in (5, 9):  # Peter and in, one piece each
        lines[k - 1] = lines[k - 1].replace("\tB-LOC\t", "\tB-XYZ\t")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as info:
        read_piece_predictions(path)
    assert info.value.total == 2 and [ln for ln, _ in info.value.others] == [9]


def test_a_missing_word_is_one_error_for_its_sentence(tmp_path):
    three = [PieceSentence(0, tuple(_word(w, "O", 1) for w in ("a", "b", "c", "d")))]
    path = write_piece_predictions(tmp_path / "p.tsv", LABELS, three, metadata={"model_name": "tiny"})
    lines = path.read_text(encoding="utf-8").splitlines()
    del lines[5]  # word 1 ("b"), line 6
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="word 2 follows word 0") as info:
        read_piece_predictions(path)
    assert (info.value.line, info.value.total) == (6, 1)


def test_a_declared_subset_smaller_than_the_file_is_refused(tmp_path):
    path = write_piece_predictions(
        tmp_path / "p.tsv", LABELS, SENTENCES, metadata={"dataset": "x", "subset": "first:1"}
    )
    with pytest.raises(
        AlignmentError, match=r"\(it says dataset=x subset=first:1\): declares subset=first:1 but holds 2"
    ):
        read_piece_predictions(path)
    ok = write_piece_predictions(tmp_path / "ok.tsv", LABELS, SENTENCES, metadata={"subset": "first:2"})
    assert len(read_piece_predictions(ok).sentences) == 2
