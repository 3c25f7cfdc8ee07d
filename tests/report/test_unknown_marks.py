"""Table 3 examples mark unknown pieces instead of showing them as if the tokenizer knew the text."""

from __future__ import annotations

import gzip
import itertools

import pytest

from tests.conftest import corpus_path
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.types import Dataset, Sentence
from tokstudy.report.table3 import SEPARATOR, example_rows, examples, examples_markdown, mark_unknown
from tokstudy.tokenization.base import Segmentation, Segmenter


class SurfacingSegmenter(Segmenter):
    """Chunks of 3 characters; a chunk with a digit is unknown but shown as its text (as SentencePiece does)."""

    name, kind, vocab_size = "chunk3", "test", 10

    def segment(self, words):
        per_word = [[w[i : i + 3] for i in range(0, len(w), 3)] for w in words]
        seg = Segmentation.from_lists(per_word)
        seg.unk[:] = [any(c.isdigit() for c in p) for p in seg.pieces]
        return seg


def _table():
    ds = Dataset((Sentence(("Flight", "AB123", "left"), ("O", "B-ID", "O")),), name="d", language="en", split="test")
    with pytest.warns(UserWarning):  # 2 of 6 pieces unknown: the coverage warning fires too
        return segmentation_table([ds], [SurfacingSegmenter()], progress=False)


def test_unknown_pieces_are_marked_in_markdown_and_rows():
    t = _table()
    (ex,) = examples(t, [0])
    md = examples_markdown([ex])
    assert SEPARATOR.join(["AB1", "<unk:23>"]) not in md  # only digit chunks are unknown: "AB1" has one
    assert SEPARATOR.join(["<unk:AB1>", "<unk:23>"]) in md
    assert SEPARATOR.join(["Fli", "ght"]) in md and "<unk:Fli>" not in md
    rows = example_rows([ex])
    assert rows[1]["chunk3"] == "<unk:AB1> · <unk:23>" and rows[1]["n:chunk3"] == 2
    assert ex.words[1].pieces["chunk3"] == ["AB1", "23"]  # the data keeps the pieces; only display marks


def test_literal_unknown_token_stays_and_file_tables_fall_back_to_counts(tmp_path):
    assert mark_unknown("[UNK]") == "[UNK]" and mark_unknown("<unk>") == "<unk>"
    t = _table()
    path = tmp_path / "t.parquet"
    t.to_parquet(path)
    back = type(t).from_parquet(path)
    assert back.column("chunk3").type_unk is None
    (ex,) = examples(back, [0])
    # every piece of "AB123" is unknown, so the count alone says which
    assert example_rows([ex])[1]["chunk3"] == "<unk:AB1> · <unk:23>"


def test_sentencepiece_unknown_text_is_marked(tmp_path):
    """A real SentencePiece model without Georgian: the surfaced text is marked, not shown as a piece."""
    import sentencepiece as spm

    from tokstudy.tokenization.loading import load_tokenizer

    with gzip.open(corpus_path("raw_text") / "en.txt.gz", "rt", encoding="utf-8") as fh:
        lines = ["".join(c for c in l.strip() if ord(c) < 0x250) for l in itertools.islice(fh, 1500)]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_prefix=str(tmp_path / "en"),
        vocab_size=500,
        character_coverage=1.0,
        minloglevel=2,
    )
    seg = load_tokenizer(tmp_path / "en.model", name="en")
    ds = Dataset((Sentence(("Tbilisi", "ქართული"), ("B-LOC", "O")),), name="ka", language="ka", split="test")
    with pytest.warns(UserWarning):
        t = segmentation_table([ds], [seg], progress=False)
    (ex,) = examples(t, [0])
    shown = example_rows([ex])[1]["en"]
    assert "<unk:ქართული>" in shown and t.pieces_of("en", 1)[-1] == "ქართული"
