"""One p-value formatter and one JSON-number rule for every table, finding and section."""

from __future__ import annotations

import ast
import math
from pathlib import Path

from tests.fixtures_doctest import assert_examples_pass
from tokstudy.report.numbers import format_p, json_number

ROOT = Path(__file__).resolve().parents[2]


def test_doctests():
    assert_examples_pass("tokstudy.report.numbers")


def test_format_p_rule():
    assert format_p(0.0) == "< 1e-300"
    assert format_p(0.012345) == "0.012"
    assert format_p(1.67e-268) == "1.7e-268"
    assert format_p(None) == "–" and format_p(math.nan) == "–"


def test_json_number_rule():
    assert json_number(None) is None and json_number(math.nan) is None
    assert json_number(2.0 / 3.0) == 2.0 / 3.0
    assert json_number(2.0 / 3.0, 2) == 0.67


def test_the_report_formats_p_values_in_one_place():
    """No other function of the report and study packages formats a p-value or a JSON number by itself."""
    for folder in ("tokstudy/report", "tokstudy/study"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "numbers.py":
                continue
            names = {
                n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)
            }
            assert not names & {"format_p", "format_p_value", "_p", "_num"}, path


def _namespaces(value):
    """JSON objects as attribute objects (what the Markdown writers read from result dataclasses)."""
    from types import SimpleNamespace

    if isinstance(value, dict):
        return SimpleNamespace(**{k: _namespaces(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_namespaces(v) for v in value]
    return value


def test_committed_correlation_table_is_what_the_writer_writes_today():
    """The cpu report's tables/correlation.md is today's correlation_markdown of its correlation.json (p-values
    by the one rule)."""
    import json

    from tokstudy.report.tables import correlation_markdown

    tables = ROOT / "examples" / "cpu_report" / "tables"
    results = _namespaces(json.loads((tables / "correlation.json").read_text(encoding="utf-8")))
    assert (tables / "correlation.md").read_text(encoding="utf-8") == correlation_markdown(results) + "\n"
