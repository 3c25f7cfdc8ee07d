"""The languages tables read back typed: each row's codec gives the committed JSON again."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.report import names
from tokstudy.study.across_languages import cross_language_correlations, vocabulary_gains
from tokstudy.study.language_rows import CrossLanguageRow, LanguageRow, VocabularyGain
from tokstudy.study.language_sections import language_findings

TABLES = PROJECT_ROOT / "examples" / "multilingual_report" / "tables"


def _json(stem):
    return json.loads((TABLES / f"{stem}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "stem, row", [(names.CROSS_LANGUAGE, CrossLanguageRow), (names.VOCABULARY_GAIN, VocabularyGain)]
)
def test_rows_round_trip_to_the_committed_json(stem, row):
    data = _json(stem)
    assert [row.from_json(r).to_json() for r in data] == data


def test_language_rows_keep_their_json_keys():
    """``or`` is a Python keyword: the field is ``odds``, the key stays ``or``; byte pieces, not counted when the
    committed rows were written, are NaN in memory and null on disk."""
    data = _json(names.LANGUAGES)
    rows = [LanguageRow.from_json(r) for r in data]
    first = next(i for i, r in enumerate(data) if r["or"] is not None)
    assert rows[first].odds == data[first]["or"] and rows[0].f1_values == tuple(data[0]["f1_values"])
    assert math.isnan(rows[0].byte_pieces)
    again = [r.to_json() for r in rows]
    assert [{k: v for k, v in a.items() if k != "byte_pieces"} for a in again] == data
    assert all(a["byte_pieces"] is None for a in again)


def test_cross_language_and_gains_recomputed_from_typed_rows_match_the_committed_ones():
    rows = [LanguageRow.from_json(r) for r in _json(names.LANGUAGES)]
    order = list(dict.fromkeys(r.tokenizer for r in rows))
    gains = vocabulary_gains(rows, order, BootstrapSettings())
    assert [g.to_json() for g in gains] == _json(names.VOCABULARY_GAIN)
    cross = cross_language_correlations(rows, order, BootstrapSettings(n_resamples=1000, seed=0))
    assert [c.correlation.rho for c in cross] == pytest.approx(
        [c["rho"] for c in _json(names.CROSS_LANGUAGE)], nan_ok=True
    )
    assert language_findings(cross, gains)[-1].claim.startswith("F1 rises from the smallest vocabulary")
