"""A table's JSON read back typed and written again is the JSON the project committed (one codec per table)."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.analysis.model_errors.correlation import ErrorCorrelation
from tokstudy.analysis.stats.estimates import AdditionalSegmentation, GroupedEstimates, SegmentationSummary
from tokstudy.analysis.stats.parity import ParityResult
from tokstudy.report import names
from tokstudy.report.codec import from_jsonable
from tokstudy.report.result import read_study_result
from tokstudy.report.scores import (
    ControlComparison,
    Score,
    control_from_json,
    control_to_json,
    scores_from_json,
    scores_to_json,
)
from tokstudy.report.tables import to_jsonable

REPORTS = [PROJECT_ROOT / "examples" / name for name in ("cpu_report", "multilingual_report")]


def _json(folder, stem):
    return json.loads((folder / "tables" / f"{stem}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder", REPORTS, ids=lambda p: p.name)
def test_scores_and_control_round_trip_to_the_same_text(folder):
    for stem, read, write in (
        (names.SCORES, scores_from_json, scores_to_json),
        (names.CONTROL, control_from_json, control_to_json),
    ):
        data = _json(folder, stem)
        assert json.dumps(write(read(data)), indent=2) == json.dumps(data, indent=2), stem


@pytest.mark.parametrize("folder", REPORTS, ids=lambda p: p.name)
def test_table4_and_correlation_read_back_as_the_analysis_dataclasses(folder):
    table4 = _json(folder, names.TABLE4)
    rows = [from_jsonable(AdditionalSegmentation, r) for r in table4]
    assert to_jsonable(rows) == table4
    correlation = _json(folder, names.CORRELATION)
    back = to_jsonable([from_jsonable(ErrorCorrelation, r) for r in correlation])
    assert _as_written(back, correlation) == correlation  # a field added since keeps its default


def _as_written(again, written):
    """``again`` with only the keys ``written`` has, at every depth."""
    if isinstance(written, dict):
        return {k: _as_written(again[k], v) for k, v in written.items()}
    if isinstance(written, list):
        return [_as_written(a, w) for a, w in zip(again, written)]
    return again


def test_a_study_result_hands_out_typed_rows():
    result = read_study_result(REPORTS[0])
    row = result.segmentation.table4_rows()[0]
    assert isinstance(row, AdditionalSegmentation)
    assert row.ne.value == pytest.approx(_json(REPORTS[0], names.TABLE4)[0]["ne"]["value"])
    assert isinstance(result.errors.correlations()[0].all.r, float)
    scores = result.study.scores_by_task()
    first = scores["conll2003-ner"]["sp-unigram-16k"]
    assert isinstance(first, Score) and first.metric == "F1" and first.n == len(first.values) == 3
    assert set(first.p_vs) == {"sp-unigram-8k"}
    control = result.study.control_by_task()["conll2003-ner"]["sp-unigram-8k"]
    assert isinstance(control, ControlComparison) and control.pretrained.metric is None


def test_null_is_nan_in_memory_and_null_again_on_disk():
    c = ControlComparison.from_json(
        {
            "metric": "F1",
            "pretrained": {"mean": 1.0, "std": 0.0, "n": 1, "values": [1.0]},
            "control": {"mean": 2.0, "std": 0.0, "n": 1, "values": [2.0]},
            "diff": -1.0,
            "low": None,
            "high": None,
            "p": None,
            "confidence": 0.95,
        }
    )
    assert math.isnan(c.low) and c.to_json()["low"] is None


def test_a_missing_field_is_named():
    with pytest.raises(ValueError, match="AdditionalSegmentation: the field 'non_ne' is missing"):
        ne = {"value": 1.0, "low": None, "high": None, "n_words": 1, "n_sentences": 1}
        from_jsonable(AdditionalSegmentation, {"tokenizer": "a", "ne": ne})


@pytest.mark.parametrize("folder", REPORTS, ids=lambda p: p.name)
def test_every_table_of_analysis_results_reads_back_as_what_it_was_written_from(folder):
    result = read_study_result(folder)
    seg = result.segmentation
    tables = [(seg.summary, SegmentationSummary), (result.parity, ParityResult)]
    tables += [(t, GroupedEstimates) for t in seg.by.values()]
    for table, cls in tables:
        if table is not None:
            rows = table.rows_of(cls)
            assert rows and all(isinstance(r, cls) for r in rows)
            assert to_jsonable(rows) == table.data, table.stem
