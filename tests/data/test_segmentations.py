"""Gold segmentation files as published: SIGMORPHON 2022's ``@`` that is text, multi-word and empty morphs, and
MorphScore's rows with an empty ``pt1`` or ``rest``.

The SIGMORPHON lines are copied from the shared task's files (``eng.word.test.gold.tsv`` lines 11190, 37705 and
50847, ``eng.word.dev.tsv``, ``mon.word.train.tsv``, ``ces.word.train.tsv``); the expected boundaries come from the
official evaluator's reading (``evaluation/evaluate.py``: every ``" @@"`` becomes a separator), written again here,
independently of the reader. The MorphScore rows are those of its Turkish and Zulu files.
"""

from __future__ import annotations

import random

import pytest

from tokstudy.data.segmentations import (
    AMBIGUOUS,
    NO_BOUNDARY,
    UNSPELLED,
    read_segmentations,
    sigmorphon_morphs,
)
from tokstudy.datalocation import data_root
from tokstudy.errors import DataFormatError

#: published lines, and whether the official reading spells the word
PUBLISHED = [
    ("played\tplay @@ed\t100", True),
    ("@ing\t@ @@ing\t100", True),  # the morph '@', then 'ing'
    ("Filipin@\tFilipin@\t000", True),
    ("Latin@s\tLatin@ @@s\t100", True),
    ("Pin@y\tPin@y\t000", True),
    ("mouth harpist\tmouth harp @@ist\t010", True),  # a multi-word entry: the space is text
    ("poroučeti (se)\tpo @@rouč @@e @@ti (se)", True),
    ("pheneticist\tpheno @@ @@etic @@ist\t010", False),  # an empty (zero) morph, and canonical besides
    ("шүүмжлэл\tшүүх @@мж @@лэх @@\t010", False),  # a trailing empty morph
    ("сэжигтнийг\tсэжиг  @@тэн @@ийг\t110", False),  # the morph 'сэжиг ' with its space
    ("inaccuracies\tin @@accurate @@cy @@s\t110", False),
]


def _official(line: str) -> tuple[str, tuple[int, ...]] | None:
    """The shared task's reading: morphs between the ``" @@"`` separators; None when they do not spell the word."""
    word, segmentation = line.split("\t")[:2]
    morphs = segmentation.replace(" @@", "|").split("|")
    if "".join(morphs) != word:
        return None
    cuts, at = set(), 0
    for m in morphs:
        at += len(m)
        cuts.add(at)
    return word, tuple(sorted(cuts - {0, len(word)}))


def test_published_lines_are_read_as_the_official_evaluator_reads_them(tmp_path):
    path = tmp_path / "eng.word.test.gold.tsv"
    path.write_text("\n".join(line for line, _ in PUBLISHED) + "\n", encoding="utf-8")
    gold = read_segmentations(path, skip_unspelled=True)
    expected = [(n, _official(line)) for n, (line, _) in enumerate(PUBLISHED, 1)]
    assert [(n, e is not None) for n, e in expected] == [(n, ok) for n, (_, ok) in enumerate(PUBLISHED, 1)]
    assert [(w.line, w.word, w.boundaries) for w in gold.words] == [(n, *e) for n, e in expected if e]
    assert [(s.line, s.kind) for s in gold.skipped] == [(n, UNSPELLED) for n, e in expected if e is None]
    at_ing = gold.words[1]
    assert (at_ing.word, at_ing.boundaries, at_ing.category) == ("@ing", (1,), "100")
    assert str(gold.skipped[0]) == "line 8: the morphs 'pheno +  + etic + ist' do not spell the word 'pheneticist'"


@pytest.mark.parametrize(
    "line",
    ["@ing\t@ @@ing\t100", "Filipin@\tFilipin@\t000", "Latin@s\tLatin@ @@s\t100", "mouth harpist\tmouth harp @@ist"],
)
def test_without_skipping_a_word_with_its_own_at_sign_or_space_is_read(tmp_path, line):
    path = tmp_path / "eng.word.tsv"
    path.write_text(f"played\tplay @@ed\t100\n{line}\n", encoding="utf-8")
    gold = read_segmentations(path)
    assert [(w.word, w.boundaries) for w in gold.words] == [("played", (4,)), _official(line)]


def test_without_skipping_an_unspelled_line_is_refused_in_one_line(tmp_path):
    path = tmp_path / "eng.word.tsv"
    path.write_text("played\tplay @@ed\t100\npheneticist\tpheno @@ @@etic @@ist\t010\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as exc:
        read_segmentations(path)
    assert str(exc.value) == f"{path}:2: the morphs 'pheno +  + etic + ist' do not spell the word 'pheneticist'"


def test_a_separator_that_is_text_is_settled_by_the_spelling(tmp_path):
    path = tmp_path / "x.word.tsv"
    rows = [
        "a @@b\ta @@b",  # one morph: the ' @@' is the word's own
        "a @@bc\ta @@b @@c",  # the first ' @@' is text, the second a boundary: no other reading spells it
        "x @@y\tx @@ @@y",  # 'x @@' + 'y' or 'x' + ' @@y': two readings spell it
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    gold = read_segmentations(path, skip_unspelled=True)
    assert [(w.word, w.boundaries) for w in gold.words] == [("a @@b", ()), ("a @@bc", (5,))]
    assert [(s.line, s.kind) for s in gold.skipped] == [(3, AMBIGUOUS)]
    with pytest.raises(DataFormatError, match=r"x\.word\.tsv:3: .* spell the word 'x @@y' in more than one way"):
        read_segmentations(path)


def test_random_segmentations_round_trip(tmp_path):
    """Morphs over an alphabet of ``a``, ``@`` and space (empty ones too), written as the format says: each word's
    boundaries are read back wherever the word holds no ``" @@"`` (which only the spelling could settle)."""
    rng = random.Random(3)
    lines, expected = [], []
    while len(lines) < 300:
        morphs = ["".join(rng.choice("a@ ") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 5))]
        word = "".join(morphs)
        if not morphs[0] or not word.strip() or " @@" in word or "\t" in word:
            continue
        lines.append(f"{word}\t{' @@'.join(morphs)}\t100")
        cuts, at = set(), 0
        for m in morphs:
            at += len(m)
            cuts.add(at)
        expected.append((word, tuple(sorted(cuts - {0, len(word)}))))
    path = tmp_path / "r.word.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [(w.word, w.boundaries) for w in read_segmentations(path).words] == expected


def test_many_separators_cost_no_more_than_the_length_squared():
    word = "a" * 400
    assert sigmorphon_morphs(" @@".join(word), word) == (tuple(word), 1)
    assert sigmorphon_morphs(" @@".join("a" * 401), word) == ((), 0)


MORPHSCORE = ",full_word,pt1,rest\n0,yendirt,yendirt,\n1,yetişmediydik,yetiş,mediydik\n2,umntwana,,umntwana\n"


def test_morphscore_rows_with_an_empty_part_are_skipped_and_counted(tmp_path):
    path = tmp_path / "turkish_morph_data.csv"
    path.write_text(MORPHSCORE, encoding="utf-8")
    gold = read_segmentations(path, skip_unspelled=True)
    assert [(w.word, w.boundaries, w.interest, w.line) for w in gold.words] == [("yetişmediydik", (5,), 5, 3)]
    assert [(s.line, s.kind) for s in gold.skipped] == [(2, NO_BOUNDARY), (4, NO_BOUNDARY)]
    assert str(gold.skipped[1]) == (
        "line 4: the boundary of 'umntwana' is at character 0, outside the word (pt1 is empty: no boundary inside it)"
    )
    assert gold.skipped_note() == (
        "2 lines skipped (2 x pt1 or rest is empty: no boundary inside the word); first: line 2: the boundary of "
        "'yendirt' is at character 7, outside the word (rest is empty: no boundary inside it)"
    )


def test_morphscore_rows_with_an_empty_part_are_refused_without_skipping(tmp_path):
    path = tmp_path / "zulu_morph_data.csv"
    path.write_text(MORPHSCORE, encoding="utf-8")
    with pytest.raises(DataFormatError) as exc:
        read_segmentations(path)
    message = str(exc.value)
    assert message == (
        f"{path}:2: the boundary of 'yendirt' is at character 7, outside the word (rest is empty: no boundary inside "
        "it)"
    )


def test_a_boundary_beyond_the_word_is_refused_even_when_skipping(tmp_path):
    path = tmp_path / "pos_morph_data.csv"
    path.write_text("word,boundary\ncats,3\ndogs,4\nbirds,9\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"pos_morph_data\.csv:4: the boundary of 'birds' is at character 9"):
        read_segmentations(path, skip_unspelled=True)
    path.write_text("word,boundary\ncats,3\ndogs,4\n", encoding="utf-8")
    gold = read_segmentations(path, skip_unspelled=True)  # at the word's end: no boundary inside it
    assert [w.word for w in gold.words] == ["cats"] and [s.kind for s in gold.skipped] == [NO_BOUNDARY]


def test_a_file_whose_every_line_is_skipped_says_why(tmp_path):
    path = tmp_path / "t_morph_data.csv"
    path.write_text(",full_word,pt1,rest\n0,it,it,\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"no words \(1 lines skipped \(1 x pt1 or rest is empty"):
        read_segmentations(path, skip_unspelled=True)


@pytest.mark.parametrize(
    ("name", "skipped"),
    [("eng.word.test.gold.tsv", {UNSPELLED}), ("turkish_morph_data.csv", {NO_BOUNDARY})],
)
def test_the_published_files_where_the_data_location_has_them(name, skipped):
    """The published files (``sigmorphon2022/`` or ``morphscore/`` at the data location): every line is read as
    the official reading says, and only the kinds expected are skipped."""
    folder = data_root() / ("sigmorphon2022" if name.endswith(".tsv") else "morphscore")
    path = folder / name
    if not path.is_file():
        pytest.skip(f"{path} not at the data location; the lines copied above cover its layouts")
    gold = read_segmentations(path, skip_unspelled=True)
    assert {s.kind for s in gold.skipped} == skipped
    if name.endswith(".tsv"):
        lines = path.read_text(encoding="utf-8").splitlines()
        expected = [(n, e) for n, e in ((n, _official(line)) for n, line in enumerate(lines, 1)) if e]
        assert [(w.line, (w.word, w.boundaries)) for w in gold.words] == expected


def test_spaces_that_end_the_column_are_not_text_of_a_word_without_them(tmp_path):
    path = tmp_path / "x.word.tsv"
    path.write_text("the\tthe \nplayed\tplay @@ed  \nwalked\twalk @@ed \t100\n", encoding="utf-8")
    gold = read_segmentations(path)
    assert [(w.word, w.boundaries, w.category) for w in gold.words] == [
        ("the", (), None),
        ("played", (4,), None),
        ("walked", (4,), "100"),
    ]
