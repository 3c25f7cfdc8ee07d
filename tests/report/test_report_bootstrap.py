"""``write_report`` takes the bootstrap settings whole and states them in its index."""

from __future__ import annotations

import json

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table
from tokstudy.report.writer import write_report


def test_the_settings_reach_the_tables_and_the_index(tmp_path):
    table = segmentation_table([random_dataset(7, 40)], [ChunkSegmenter(3)], progress=False)
    boot = BootstrapSettings(n_resamples=15, confidence=0.9, seed=4)
    files = write_report(table, tmp_path, boot=boot, figures=False)
    assert "Intervals: 90% bootstrap over sentences, 15 resamples, seed 4." in files.index.read_text(encoding="utf-8")
    written = json.loads((tmp_path / "table4.json").read_text(encoding="utf-8"))
    assert written[0]["bootstrap"] == {"n_resamples": 15, "confidence": 0.9, "seed": 4}
