"""The docstring examples of the data modules run as written."""

from __future__ import annotations

import doctest

import pytest

from tests.fixtures_doctest import assert_examples_pass

MODULES = [
    "schemes",
    "conll",
    "slu",
    "tsv",
    "jsonl",
    "pretokenize",
    "rawtext",
    "registry",
    "corpora",
    "names",
    "massive",
    "repairs",
    "textio",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module):
    assert_examples_pass(f"tokstudy.data.{module}", optionflags=doctest.ELLIPSIS)
