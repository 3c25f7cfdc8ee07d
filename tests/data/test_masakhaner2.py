"""MasakhaNER 2.0 through the registry: every file's counts equal its README's, entities equal an independent
count, the 52 I- tags that continue no entity are repaired by default, and the 2 malformed lines of
``xho_train`` are named with file and line, or skipped (exactly 2) when lenient."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tokstudy.data.conll import read_conll
from tokstudy.data.registry import MASAKHANER2_LANGUAGES, load_dataset
from tokstudy.data.repairs import SKIPPED, START
from tokstudy.errors import DataFormatError, TagSchemeError

SPLITS = ("train", "dev", "test")
#: I- tags that continue no entity (after O or another type), per file: repaired by default
REPAIRED = {
    ("fon", "train"): 6,
    ("hau", "train"): 1,
    ("hau", "test"): 1,
    ("kin", "train"): 14,
    ("kin", "dev"): 1,
    ("kin", "test"): 1,
    ("lug", "train"): 1,
    ("luo", "train"): 3,
    ("luo", "dev"): 1,
    ("pcm", "train"): 1,
    ("swa", "test"): 1,
    ("xho", "train"): 4,
    ("xho", "dev"): 1,
    ("xho", "test"): 4,
    ("yor", "train"): 1,
    ("yor", "test"): 1,
    ("zul", "train"): 7,
    ("zul", "test"): 3,
}
XHO_MALFORMED = (44520, 74513)


def readme_counts(folder: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """``(language, split) -> (sentences, tokens)`` from the README's table."""
    out = {}
    for line in (folder / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] not in MASAKHANER2_LANGUAGES:
            continue
        for split, cell in zip(SPLITS, cells[2:]):
            m = re.match(r"([\d,]+) / ([\d,]+)", cell)
            out[cells[0], split] = tuple(int(g.replace(",", "")) for g in m.groups())
    return out


def independent_entities(path: Path) -> int:
    """Entities counted from the raw tags: a B-X, or an I-X that does not continue an X (the conlleval rule)."""
    n, previous = 0, "O"
    for line in gzip.decompress(path.read_bytes()).decode("utf-8").split("\n"):
        fields = line.split()
        if len(fields) != 2:  # a sentence break (or one of xho_train's single-field lines, skipped)
            previous = "O" if not fields else previous
            continue
        tag = fields[1]
        n += tag.startswith("B-") or (tag.startswith("I-") and previous[2:] != tag[2:])
        previous = tag
    return n


@pytest.fixture(scope="module")
def folder() -> Path:
    return corpus_path("masakhaner2")


def test_readme_has_every_file(folder):
    counts = readme_counts(folder)
    assert len(counts) == 60
    assert {tuple(p.name.split(".")[0].split("_")) for p in folder.glob("*_*.txt.gz")} == set(counts)


@pytest.mark.parametrize("language", MASAKHANER2_LANGUAGES)
def test_counts_entities_and_repairs(folder, language):
    counts = readme_counts(folder)
    for split in SPLITS:
        ds = load_dataset("masakhaner2", split, language=language, lenient=True if language == "xho" else None)
        assert (ds.name, ds.language, ds.split) == ("masakhaner2", language, split)
        assert (len(ds), ds.n_words) == counts[language, split]
        assert ds.n_entities == independent_entities(folder / f"{language}_{split}.txt.gz")
        assert ds.repaired == REPAIRED.get((language, split), 0)
        assert ds.repair_log.counts.get(START, 0) == ds.repaired
        assert ("note" in ds.metadata) == bool(ds.repaired or ds.repair_log.skipped)
        assert {t[2:] for s in ds for t in s.tags if t != "O"} == {"PER", "ORG", "LOC", "DATE"}


def test_repairs_are_named_and_refused_when_strict(folder):
    with pytest.raises(TagSchemeError, match=r"zul_test\.txt\.gz:1959: tag 'I-DATE'") as err:
        load_dataset("masakhaner2", "test", language="zul", lenient=False)
    assert err.value.total == 3


def test_malformed_xhosa_lines_are_named_with_file_and_line(folder):
    for lenient in (None, False):  # the default repairs tags but never drops a line
        with pytest.raises(DataFormatError) as err:
            load_dataset("masakhaner2", "train", language="xho", lenient=lenient)
        message = str(err.value)
        assert message.startswith(f"{folder / 'xho_train.txt.gz'}:{XHO_MALFORMED[0]}: line has 1 column, expected 2")
        assert f"xho_train.txt.gz:{XHO_MALFORMED[1]}: line has 1 column" in message
        assert "(2 problems in all)" in message and "--lenient" in message


def test_lenient_skips_exactly_the_two_lines_and_says_so(folder):
    ds = load_dataset("masakhaner2", "train", language="xho", lenient=True)
    log = ds.repair_log
    assert log.skipped == 2 and ds.metadata["skipped_lines"] == 2
    skipped = [r for r in log.first if r.kind == SKIPPED]
    assert [r.line for r in skipped] == list(XHO_MALFORMED) and all(r.tag == "O" for r in skipped)
    assert "2 line(s) with a single field were skipped" in ds.metadata["note"]
    text = log.describe()
    assert text.startswith(f"4 tags repaired and 2 lines skipped in {folder / 'xho_train.txt.gz'}")
    assert f"xho_train.txt.gz:{XHO_MALFORMED[0]}: line 'O' skipped" in text
    assert (len(ds), ds.n_words) == (5718, 86645)  # the README's counts, the 2 lines not among them


def test_a_skipped_line_keeps_later_lines_exact(tmp_path):
    """A tag error after a skipped line names its own line, not the one before."""
    path = tmp_path / "f.txt"
    path.write_text("a O\n O\nb I-PER\nc O\n\nd B-LOC\n", encoding="utf-8")
    ds = read_conll(path, scheme="IOB2", lenient=True)
    assert ds.repair_log.skipped == 1 and ds.repaired == 1
    assert [(r.kind, r.line) for r in ds.repair_log.first] == [(SKIPPED, 2), (START, 3)]
    assert [s.words for s in ds] == [("a", "b", "c"), ("d",)]
    with pytest.raises(TagSchemeError, match=r"f\.txt:3: tag 'I-PER'"):
        read_conll(path, scheme="IOB2", skip_malformed=True)
    with pytest.raises(DataFormatError, match=r"f\.txt:2: line has 1 column, expected 2"):
        read_conll(path, scheme="IOB2")
