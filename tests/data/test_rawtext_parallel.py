"""Parallel paragraphs (xquad_parallel): alignment by index, layout checks, real counts."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from tokstudy.data.rawtext import read_parallel, read_parallel_articles
from tokstudy.errors import AlignmentError, DataNotFoundError

XQUAD_LANGS = ["ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh"]


def test_xquad_48_articles_240_paragraphs_each():
    root = corpus_path("xquad_parallel")
    articles = read_parallel_articles(root)
    assert sorted(articles) == XQUAD_LANGS
    # the per-article layout must be the one listed in articles.tsv
    rows = [line.split("\t") for line in (root / "articles.tsv").read_text().splitlines()[1:]]
    layout = [int(r[2]) for r in rows]
    for lang, arts in articles.items():
        assert len(arts) == 48 and sum(len(a) for a in arts) == 240, lang
        assert [len(a) for a in arts] == layout
    paragraphs = read_parallel(root, ["en", "zh"])
    assert sorted(paragraphs) == ["en", "zh"] and len(paragraphs["en"]) == len(paragraphs["zh"]) == 240
    assert paragraphs["en"][0].startswith("The Panthers defense gave up just 308 points")


def test_layout_mismatch_is_named(tmp_path):
    (tmp_path / "en.txt").write_text("a\nb\n\nc\n")
    (tmp_path / "de.txt").write_text("a\n\nb\nc\n")
    with pytest.raises(
        AlignmentError, match=r"en\.txt:1: article 0 has 2 paragraphs but in .*de\.txt \(line 1\) it has 1"
    ):
        read_parallel(tmp_path)
    (tmp_path / "en.txt").write_text("a\n\nb\nc\n\nd\n")
    with pytest.raises(AlignmentError, match=r"en\.txt: 3 articles but .*de\.txt has 2"):
        read_parallel(tmp_path)


def test_missing_language_and_directory(tmp_path):
    (tmp_path / "en.txt").write_text("a\n")
    with pytest.raises(DataNotFoundError, match=r"no file for language\(s\) \['fr'\]"):
        read_parallel(tmp_path, ["en", "fr"])
    with pytest.raises(DataNotFoundError, match="not found"):
        read_parallel(tmp_path / "nope")
