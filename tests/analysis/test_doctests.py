"""The docstring examples of the analysis and report modules run."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass

MODULES = [
    "tokstudy.analysis.model_errors.predictions",
    "tokstudy.analysis.table",
    "tokstudy.analysis.table.frame",
    "tokstudy.analysis.table.wordtable",
    "tokstudy.analysis.table.tags",
    "tokstudy.analysis.stats.bootstrap",
    "tokstudy.analysis.table.factorize",
    "tokstudy.inputs.tokenizers",
    "tokstudy.inputs.datasets",
    "tokstudy.inputs.request",
    "tokstudy.inputs.load",
    "tokstudy.data.formats",
    "tokstudy.analysis.stats.intrinsic",
    "tokstudy.analysis.stats.ratio_batch",
    "tokstudy.analysis.stats.groupings",
    "tokstudy.analysis.corpus.counts",
    "tokstudy.analysis.corpus.figures",
    "tokstudy.configfile",
    "tokstudy.cli.arguments.options",
    "tokstudy.cli.arguments.outputs",
    "tokstudy.report.tables",
    "tokstudy.report.html",
    "tokstudy.analysis.stats.parity",
    "tokstudy.report.attribution",
    "tokstudy.report.verdict",
    "tokstudy.analysis.table.bytepieces",
    "tokstudy.study.report_sections",
    "tokstudy.analysis.stats.shredded",
    "tokstudy.analysis.morph.pieces",
    "tokstudy.analysis.morph.scores",
    "tokstudy.data.segmentations",
    "tokstudy.report.shredded",
    "tokstudy.report.morph",
    "tokstudy.analysis.model_errors.piece_predictions",
    "tokstudy.analysis.model_errors.piece_agreement",
    "tokstudy.analysis.model_errors.predictions_metadata",
    "tokstudy.report.pieces",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    assert_examples_pass(name)
