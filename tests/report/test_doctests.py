"""The docstring examples of the report's result, its files and its assembler, and of the study's findings, run."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass

MODULES = [
    "tokstudy.report.result",
    "tokstudy.report.assemble",
    "tokstudy.study.findings",
    "tokstudy.study.language_sections",
    "tokstudy.study.across_languages",
    "tokstudy.study.stage_bodies",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    assert_examples_pass(name)
