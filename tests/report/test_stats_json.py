"""``tokstudy stats --json`` holds the report's tables' JSON: one schema, made in one place."""

from __future__ import annotations

import json

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.stats import table_statistics
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.per_language import language_table
from tokstudy.analysis.stats.shredded import shredded_table
from tokstudy.analysis.table import segmentation_table
from tokstudy.report import build, names
from tokstudy.report.writer import write_report


def test_stats_json_is_the_reports_tables_under_their_names(tmp_path):
    ds = [random_dataset(41, 80), random_dataset(42, 40, name="b", language="de")]
    table = segmentation_table(ds, [ChunkSegmenter(2), ChunkSegmenter(4)], progress=False)
    groupings = ["entity_type", "position", "dataset"]
    stats = table_statistics(table, groupings=groupings, bootstrap=BootstrapSettings(10))
    doc = build.stats_json(
        table.datasets, stats, language_table(table, bootstrap=BootstrapSettings(10)), (), shredded_table(table)
    )
    write_report(table, tmp_path, groupings=groupings, boot=BootstrapSettings(10), figures=False)

    def written(stem):
        return json.loads((tmp_path / f"{stem}.json").read_text(encoding="utf-8"))

    for stem in (names.TABLE4, names.SUMMARY, names.INTRINSIC, names.SHREDDED):
        assert doc[stem] == written(stem), stem
    assert doc["by"] == {g: written(names.grouped(g)) for g in groupings}
    assert doc["datasets"] == list(table.datasets) and doc[names.REPAIRS] == []
    with open(tmp_path / f"{names.LANGUAGES}.csv", encoding="utf-8") as fh:
        assert len(doc[names.LANGUAGES]) == sum(1 for _ in fh) - 1  # the rows of languages.csv
