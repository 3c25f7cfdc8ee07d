"""The attribution table's rows are typed, and their JSON is the one attribution.json has always held."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.analysis.stats import GROUPINGS
from tokstudy.report.attribution_rows import AttributionRow, AttributionTable, RatioCells
from tokstudy.report.result import Breakdown

EXAMPLES = PROJECT_ROOT / "examples"
COMMITTED = [EXAMPLES / name / "tables" / "attribution.json" for name in ("cpu_report", "multilingual_report")]


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.parent.parent.name)
def test_a_committed_table_reads_typed_and_writes_back_byte_for_byte(path):
    text = path.read_text(encoding="utf-8")
    table = AttributionTable.from_json(json.loads(text))
    assert table.rows and table.cells and all(isinstance(r.adjusted, RatioCells) for r in table.rows)
    assert json.dumps(table.to_json(), indent=2, ensure_ascii=False) + "\n" == text
    first = json.loads(text)["attribution"][0]
    row = table.rows[0]
    assert (row.model, row.tokenizer, row.adjusted.low, row.by_pieces["4+"].high) == (
        first["model"],
        first["tokenizer"],
        first["or_adjusted_low"],
        first["or_pieces_4+_high"],
    )


def test_a_fitted_row_reads_back_equal_and_keeps_nan_as_none():
    from tests.analysis.model_errors.test_attribution import confounded_corpus
    from tokstudy.analysis.model_errors.attribution import attribute_errors
    from tokstudy.analysis.table import segmentation_table

    ds, preds, seg, counts = confounded_corpus(seed=1, n_sentences=300)
    result = attribute_errors(segmentation_table([ds], [seg], progress=False), preds, train=counts)
    row = AttributionRow.of(result)
    assert row.adjusted.value == result.adjusted.value and row.n_words == result.n_words
    assert set(row.by_pieces) == set(result.by_pieces)
    assert AttributionRow.from_json(json.loads(json.dumps(row.to_json()))) == row
    table = AttributionTable.of([result])
    assert len(table.cells) == len(result.by_frequency)
    assert AttributionTable.from_json(json.loads(json.dumps(table.to_json()))) == table
    empty = [c for c, r in zip(table.cells, result.by_frequency) if math.isnan(r.error_rate)]
    assert all(c.error_rate is None for c in empty)  # a cell without words: null, as JSON writes NaN


def test_an_unfitted_ratio_shows_a_dash():
    assert RatioCells(None, None, None).text() == "–" and RatioCells(1.0, 0.5, 2.0).text() == "1.000 [0.500, 2.000]"


def test_the_breakdowns_are_the_analysis_groupings():
    """A report's breakdowns are the statistics' groupings, in their order, so a member keys the statistics' ``by``."""
    assert tuple(Breakdown) == GROUPINGS and {Breakdown.LANGUAGE: 1}.get("language") == 1
    assert f"by_{Breakdown.ENTITY_TYPE}" == "by_entity_type"
