"""The docstring examples of the analysis and report modules run."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass

MODULES = [
    "tokstudy.analysis.predictions",
    "tokstudy.analysis.table",
    "tokstudy.analysis.tags",
    "tokstudy.analysis.bootstrap",
    "tokstudy.analysis.factorize",
    "tokstudy.analysis.inputs",
    "tokstudy.analysis.intrinsic",
    "tokstudy.analysis.ratio_batch",
    "tokstudy.configfile",
    "tokstudy.cli.arguments",
    "tokstudy.report.tables",
    "tokstudy.report.html",
    "tokstudy.analysis.parity",
    "tokstudy.report.attribution",
    "tokstudy.study.report",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    assert_examples_pass(name)
