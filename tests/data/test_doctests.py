"""The docstring examples of the data modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "schemes",
    "conll",
    "slu",
    "tsv",
    "jsonl",
    "pretokenize",
    "parallel",
    "registry",
    "textio",
    "problems",
    "atomicwrite",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module):
    mod = importlib.import_module(f"tokstudy.data.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
