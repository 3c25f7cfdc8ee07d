"""The shredded-words and morpheme-boundary sections of ``write_report``: present, linked, and equal to the API."""

from __future__ import annotations

import csv
import json

from tokstudy.analysis.morph import morph_table
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.shredded import shredded_table
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.segmentations import read_segmentations
from tokstudy.data.types import Dataset, Sentence
from tokstudy.report.morph import morph_markdown
from tokstudy.report.shredded import shredded_markdown
from tokstudy.report.writer import write_report
from tokstudy.tokenization.base import Segmentation, Segmenter
from tokstudy.tokenization.context import METASPACE, WordContext


class Chunks(Segmenter):
    kind, vocab_size = "sentencepiece", 0
    context = WordContext("sentencepiece", "", METASPACE)

    def __init__(self, size: int):
        self.size, self.name = size, f"chunk{size}"

    def segment(self, words):
        return Segmentation.from_lists(
            [
                ["▁" + w[: self.size]] + [w[i : i + self.size] for i in range(self.size, len(w), self.size)]
                for w in words
            ]
        )


def test_sections_written_and_linked(tmp_path):
    ds = Dataset(
        (
            Sentence(
                ("Peter", "Blackburn", "played", "in", "Reykjavik"), ("B-PER", "I-PER", "O", "O", "B-LOC"), sent_id=0
            ),
            Sentence(("Blackburn", "walked"), ("B-PER", "O"), sent_id=1),
        ),
        name="toy",
        language="en",
        split="test",
    )
    segs = [Chunks(2), Chunks(4)]
    table = segmentation_table([ds], segs, progress=False)
    gold_path = tmp_path / "en.word.tsv"
    gold_path.write_text("played\tplay @@ed\t100\nwalked\twalk @@ed\t100\n", encoding="utf-8")
    morph = morph_table([read_segmentations(gold_path)], segs)
    files = write_report(table, tmp_path / "out", morph_results=morph, boot=BootstrapSettings(0), figures=False)
    index = files.index.read_text(encoding="utf-8")
    assert "## Shredded frequent words" in index and "[shredded.md](shredded.md)" in index
    assert "## Morpheme boundaries" in index and "[morph.md](morph.md)" in index
    assert shredded_markdown(shredded_table(table)) in index
    assert morph_markdown(morph) in index
    rows = list(csv.DictReader(open(tmp_path / "out" / "shredded.csv", encoding="utf-8")))
    assert rows[0]["tokenizer"] == "chunk2" and rows[0]["word"] == "Blackburn" and rows[0]["frequency"] == "2"
    saved = json.loads((tmp_path / "out" / "morph.json").read_text(encoding="utf-8"))
    assert [r["tokenizer"] for r in saved] == ["chunk2", "chunk4"]
    # chunk2 cuts played / walked at 2 and 4, chunk4 at 4; the gold boundary is at 4 in both words
    assert saved[0]["boundaries"]["true_positive"] == 2 and saved[1]["boundaries"]["true_positive"] == 2
    assert not (tmp_path / "out" / "morph.md").read_text(encoding="utf-8").count("Traceback")
