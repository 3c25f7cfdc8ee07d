"""The docstring examples of the in-context definition, the coverage warning, the unknown marks and the model
directory settings run."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass

MODULES = [
    "tokstudy.tokenization.context",
    "tokstudy.analysis.table.coverage",
    "tokstudy.report.table3",
    "tokstudy.tokenization.tekken",
    "tokstudy.tokenization.tiktoken_",
    "tokstudy.tokenization.model_directory",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    assert_examples_pass(name)
