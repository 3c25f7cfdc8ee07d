"""MultiCoNER 2022 through the registry: every file's counts equal its README's, and the reader equals an
independent parse of the real files (words, tags, entities)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tokstudy.data.conll import read_conll
from tokstudy.data.registry import MULTICONER_LANGUAGES, dataset_info, load_dataset


def readme_counts(folder: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """``(language, split) -> (sentences, tokens)`` from the README's table (``–`` where there is no file)."""
    out = {}
    for line in (folder / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] not in MULTICONER_LANGUAGES:
            continue
        for split, cell in zip(("train", "dev"), cells[2:]):
            if m := re.fullmatch(r"([\d,]+) / ([\d,]+)", cell):
                out[cells[0], split] = tuple(int(g.replace(",", "")) for g in m.groups())
    return out


def independent_parse(path: Path) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``(words, tags)`` per sentence, read another way: blocks between blank lines, the ``# id`` header
    dropped, each token line cut at its `` _ _ `` (so a word with a space would show)."""
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    sentences = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        rows = block.split("\n")
        assert rows[0].startswith("# id ") and "\tdomain=" in rows[0], rows[0]
        pairs = [row.rsplit(" _ _ ", 1) for row in rows[1:]]
        sentences.append((tuple(w for w, _ in pairs), tuple(t for _, t in pairs)))
    return sentences


@pytest.fixture(scope="module")
def folder() -> Path:
    return corpus_path("multiconer2022")


def test_readme_counts_cover_the_17_files(folder):
    counts = readme_counts(folder)
    assert len(counts) == 17 and sum(1 for _, split in counts if split == "train") == 6
    present = {tuple(p.name.split(".")[0].split("_")) for p in folder.glob("*_*.conll.gz")}
    assert present == set(counts)


@pytest.mark.parametrize("language", MULTICONER_LANGUAGES)
def test_counts_and_independent_parse(folder, language):
    counts = readme_counts(folder)
    for split in ("train", "dev"):
        if (language, split) not in counts:
            continue
        ds = load_dataset("multiconer2022", split, language=language)
        assert (ds.name, ds.language, ds.split) == ("multiconer2022", language, split)
        assert (len(ds), ds.n_words) == counts[language, split]
        reference = independent_parse(folder / f"{language}_{split}.conll.gz")
        assert [(s.words, s.tags) for s in ds] == reference
        b_tags = sum(t.startswith("B-") for _, tags in reference for t in tags)
        assert ds.repaired == 0 and ds.n_entities == b_tags
        assert {t[2:] for s in ds for t in s.tags if t != "O"} <= {"PER", "LOC", "GRP", "CORP", "PROD", "CW"}


def test_info():
    info = dataset_info("multiconer2022")
    assert (info.task, info.splits, len(info.languages)) == ("ner", ("train", "dev"), 11)


def test_a_word_hash_is_a_word_and_the_header_is_not(tmp_path):
    """MultiCoNER has ``#`` as a word (``# _ _ O``); only ``# id <uuid>\\tdomain=...`` is a header."""
    path = tmp_path / "x_dev.conll"
    path.write_text("# id a1\tdomain=dev\n# _ _ O\nbob _ _ B-PER\n\n# id a2\tdomain=dev\nparis _ _ B-LOC\n")
    ds = read_conll(path, scheme="IOB2")
    assert [(s.words, s.tags, s.line) for s in ds] == [(("#", "bob"), ("O", "B-PER"), 2), (("paris",), ("B-LOC",), 6)]
