"""The docstring examples of the in-context definition, the coverage warning and the unknown marks run."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass

MODULES = [
    "tokstudy.tokenization.context",
    "tokstudy.analysis.table.coverage",
    "tokstudy.report.table3",
    "tokstudy.tokenization.tekken",
    "tokstudy.tokenization.tiktoken_",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    assert_examples_pass(name)
