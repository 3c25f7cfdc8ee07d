"""``breakdowns`` (one bootstrap pass) against its reference: ``additional_segmentation_by`` called once per figure."""

from __future__ import annotations

import pytest

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tokstudy.analysis.stats import BootstrapSettings, additional_segmentation_by
from tokstudy.analysis.stats.segmentation import breakdowns
from tokstudy.analysis.table import segmentation_table

pytestmark = pytest.mark.filterwarnings("ignore::tokstudy.analysis.table.coverage.UnknownPiecesWarning")


def test_every_figure_equals_its_own_bootstrap_pass():
    ds = [random_dataset(1, 80, name="a", language="en"), random_dataset(2, 60, name="b", language="de")]
    table = segmentation_table(ds, [ChunkSegmenter(2), ChunkSegmenter(3)], progress=False)
    kw = {"bootstrap": BootstrapSettings(40, 0.9, 3)}
    got = breakdowns(table, groupings=("entity_type", "language", "dataset"), subsets=("ne", "non_ne", "all"), **kw)
    assert list(got) == ["entity_type", "language", "dataset"]
    for by, grouped in got.items():
        assert [(g.tokenizer, g.subset) for g in grouped] == [
            (t, s) for t in ("chunk2", "chunk3") for s in ("ne", "non_ne", "all")
        ]
        for g in grouped:
            assert g == additional_segmentation_by(table, g.tokenizer, by, subset=g.subset, **kw)
