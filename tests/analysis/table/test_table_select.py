"""``SegmentationTable.select(dataset=...)`` against its reference: the table built from that dataset alone."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.analysis.conftest import ChunkSegmenter, SpmSegmenter, random_dataset
from tokstudy.analysis.table import SegmentationTable, TokenizerColumns, segmentation_table

pytestmark = pytest.mark.filterwarnings("ignore::tokstudy.analysis.table.coverage.UnknownPiecesWarning")


def _assert_tables_equal(got: SegmentationTable, want: SegmentationTable) -> None:
    """Every column of the two tables equal (arrays by value and dtype)."""
    for f in dataclasses.fields(SegmentationTable):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if f.name == "tokenizers":
            assert list(a) == list(b)
            for name in a:
                for cf in dataclasses.fields(TokenizerColumns):
                    x, y = getattr(a[name], cf.name), getattr(b[name], cf.name)
                    _assert_equal(x, y, f"{name}.{cf.name}")
        else:
            _assert_equal(a, b, f.name)


def _assert_equal(a, b, what: str) -> None:
    if isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype, what
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        assert a == b, what


@pytest.fixture(scope="module")
def datasets():
    return [
        random_dataset(1, 120, name="alpha", language="en"),
        random_dataset(2, 90, name="beta", language="de", unlabelled_every=4),
        random_dataset(3, 60, name="alpha", language="ru"),  # same name and split as the first: language label
    ]


@pytest.fixture(scope="module")
def segmenters(spm_model):
    return [SpmSegmenter(spm_model, "spm400"), ChunkSegmenter(2), ChunkSegmenter(3)]


def test_select_equals_the_table_of_that_dataset_alone(datasets, segmenters):
    full = segmentation_table(datasets, segmenters, progress=False)
    assert full.datasets == ("alpha:en:test", "beta:test", "alpha:ru:test")
    for label, ds in zip(full.datasets, datasets):
        _assert_tables_equal(full.select(dataset=label), segmentation_table([ds], segmenters, progress=False))


def test_select_several_datasets_in_the_order_given(datasets, segmenters):
    full = segmentation_table(datasets, segmenters, progress=False)
    got = full.select(dataset=["alpha:ru:test", "beta:test"])
    _assert_tables_equal(got, segmentation_table([datasets[2], datasets[1]], segmenters, progress=False))


def test_select_does_not_segment_again(datasets):
    seg = ChunkSegmenter(2)
    full = segmentation_table(datasets, [seg], progress=False)
    full.select(dataset="beta:test")
    assert seg.calls == 1


def test_select_unknown_dataset_names_the_known_ones(datasets):
    full = segmentation_table(datasets[:1], [ChunkSegmenter(2)], progress=False)
    with pytest.raises(KeyError, match="alpha:test"):
        full.select(dataset="nope:test")


@pytest.mark.parametrize("name", ["tokstudy.analysis.table.select", "tokstudy.analysis.table.words"])
def test_docstring_examples_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
