"""Datasets and tokenizers whose names repeat are named by their folders, one rule for both."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from tests.fixtures_sentencepiece import train_unigram
from tokstudy.inputs import load_datasets, load_tokenizers
from tokstudy.inputs.folder_names import names_by_folder


def _brute_force(name: str, paths: list[Path]) -> list[str]:
    """The fewest nearest folders that tell every path apart, tried depth by depth from the whole path down."""
    folders = [p.parent.parts for p in paths]
    for depth in range(1, max(len(p.parts) for p in paths)):
        labels = ["/".join([*f[max(0, len(f) - depth) :], name]) for f in folders]
        if len(set(labels)) == len(paths):
            return labels
    return None


@pytest.mark.parametrize("seed", range(30))
def test_the_fewest_folders_that_tell_the_paths_apart(seed):
    rng = random.Random(seed)
    paths = list(
        {
            Path("/", *(rng.choice("abc") for _ in range(rng.randint(1, 4))), "test.txt")
            for _ in range(rng.randint(2, 5))
        }
    )
    if len(paths) < 2:
        return
    want = _brute_force("test", paths)
    got = names_by_folder("test", paths)
    assert got == want if want is not None else len(set(got)) < len(got)


def test_datasets_and_tokenizers_are_named_alike(tmp_path):
    words = "John lives in Paris Mary works at Acme the river flows north".split()
    text = [" ".join(words[(i * 7 + j) % len(words)] for j in range(8)) for i in range(500)]
    model = train_unigram(text, tmp_path / "m", 30)
    for lang in ("amh", "swa"):
        (tmp_path / "x" / lang).mkdir(parents=True)
        (tmp_path / "x" / lang / "test.txt").write_text("John B-PER\nlives O\n", encoding="utf-8")
        shutil.copy(model, tmp_path / "x" / lang / "test.model")
    files = [str(tmp_path / "x" / lang / "test.txt") for lang in ("amh", "swa")]
    models = [str(tmp_path / "x" / lang / "test.model") for lang in ("amh", "swa")]
    assert [d.name for d in load_datasets(files)] == ["amh/test", "swa/test"]
    assert [t.name for t in load_tokenizers(models)] == ["amh/test", "swa/test"]
