"""The docstring examples of the analysis and report modules run."""

from __future__ import annotations

import doctest
import importlib

import pytest

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
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
