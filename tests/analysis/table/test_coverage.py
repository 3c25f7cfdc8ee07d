"""Unknown-piece share per dataset: a tokenizer that covers none of a script warns, naming the script.

An English-only SentencePiece model (trained here on English raw text with full character
coverage of that text) meets real WikiANN Russian and CoNLL-2003 English sentences.
"""

from __future__ import annotations

import gzip
import itertools
import warnings

import pytest

from tests.conftest import corpus_path
from tests.fixtures_sentencepiece import train_unigram
from tokstudy.analysis.table import segmentation_table
from tokstudy.analysis.table.coverage import (
    THRESHOLD,
    UnknownPiecesWarning,
    char_script,
    coverage_warnings,
    unknown_share,
)
from tokstudy.data.types import Dataset, Sentence
from tokstudy.tokenization.loading import load_tokenizer


def _column_sentences(path, limit, sep):
    sents, words, tags = [], [], []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split(sep)
            if len(parts) < 2 or not parts[0]:
                if words:
                    sents.append(Sentence(tuple(words), tuple(tags), sent_id=len(sents)))
                    words, tags = [], []
                    if len(sents) == limit:
                        break
                continue
            if parts[0] == "-DOCSTART-":
                continue
            words.append(parts[0])
            tags.append(parts[-1])
    return sents


@pytest.fixture(scope="module")
def english_only(tmp_path_factory):
    with gzip.open(corpus_path("raw_text") / "en.txt.gz", "rt", encoding="utf-8") as fh:
        lines = [l.strip() for l in itertools.islice(fh, 2000)]
    lines = ["".join(ch for ch in l if ord(ch) < 0x250) for l in lines]  # Latin script only
    prefix = tmp_path_factory.mktemp("spm") / "en"
    return load_tokenizer(train_unigram(lines, prefix, 600, character_coverage=1.0), name="en-only")


@pytest.fixture(scope="module")
def datasets():
    ru = _column_sentences(corpus_path("wikiann") / "ru.test.tsv.gz", 200, "\t")
    en = _column_sentences(corpus_path("conll2003") / "eng.testb.gz", 200, " ")
    return [
        Dataset(tuple(ru), name="wikiann", language="ru", split="test"),
        Dataset(tuple(en), name="conll2003", language="en", split="test"),
    ]


def test_uncovered_script_warns_and_names_it(english_only, datasets):
    with pytest.warns(UnknownPiecesWarning) as caught:
        table = segmentation_table(datasets, [english_only], progress=False)
    messages = [str(w.message) for w in caught if issubclass(w.category, UnknownPiecesWarning)]
    assert len(messages) == 1, messages  # Russian only; English is covered
    msg = messages[0]
    assert "'wikiann:test'" in msg or "wikiann" in msg
    assert "CYRILLIC script" in msg and "'en-only'" in msg
    # an independent recount of the share: unknown pieces of the Russian words / all their pieces
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(english_only.model_file))
    ids = [sp.encode(w) for s in datasets[0] for w in s.words]
    share = sum(i == sp.unk_id() for x in ids for i in x) / sum(map(len, ids))
    (ru,) = [s for s in unknown_share(table, "en-only") if "wikiann" in s.dataset]
    assert ru.share == pytest.approx(share) and share > THRESHOLD
    assert f"{share:.1%}" in msg
    top = ru.top_chars[0][0]
    assert char_script(top) == "CYRILLIC" and f"{top!r}" in msg


def test_covered_text_gives_no_warning(english_only, datasets):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownPiecesWarning)
        table = segmentation_table(datasets[1:], [english_only], progress=False)
    assert coverage_warnings(table) == []


def test_wordpiece_unk_names_the_words_characters():
    """A WordPiece ``[UNK]`` stands for the whole word: its characters are reported."""
    from tokstudy.tokenization.base import Segmentation, Segmenter

    class AllUnknown(Segmenter):
        name, kind, vocab_size = "unk", "test", 1

        def segment(self, words):
            return Segmentation.from_lists([["[UNK]"] for _ in words], unk_piece="[UNK]")

    ds = Dataset((Sentence(("ქართული", "ენა"), ("B-LOC", "O")),), name="ka", language="ka", split="test")
    with pytest.warns(UnknownPiecesWarning, match=r"100\.0% .*'ა'.*GEORGIAN script"):
        segmentation_table([ds], [AllUnknown()], progress=False)


def test_cli_prints_the_warning_as_one_line(english_only, capsys):
    from tokstudy.cli import main

    rc = main(
        [
            "stats",
            "-d",
            "wikiann:ru:test",
            "-t",
            f"en-only={english_only.model_file}",
            "--resamples",
            "0",
            "--no-progress",
            "--data-dir",
            str(corpus_path("wikiann").parent),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0
    lines = [l for l in err.splitlines() if "unknown pieces" in l]
    assert len(lines) == 1 and lines[0].startswith("tokstudy: warning: tokenizer 'en-only'") and "CYRILLIC" in lines[0]
