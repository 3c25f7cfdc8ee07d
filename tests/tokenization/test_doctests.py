"""The docstring examples of the in-context definition, the coverage warning and the unknown marks run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["tokstudy.tokenization.context", "tokstudy.analysis.coverage", "tokstudy.report.table3"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
