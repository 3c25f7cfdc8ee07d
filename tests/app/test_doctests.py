"""The docstring examples of the app's services (and of the alignment it relies on) run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "analysis_app.services.explorer",
    "analysis_app.services.sentences",
    "analysis_app.services.sources",
    "analysis_app.services.defaults",
    "analysis_app.services.languages",
    "analysis_app.services.mislabels",
    "analysis_app.services.pairing",
    "analysis_app.services.statistics",
    "analysis_app.services.paths",
    "analysis_app.services.settings",
    "analysis_app.services.results",
    "analysis_app.services.background",
    "analysis_app.components.inputs",
    "analysis_app.services.shredded",
    "analysis_app.services.morph",
    "analysis_app.services.piece_labels",
    "analysis_app.services.model_runs",
    "tokstudy.analysis.model_errors.predictions_metadata",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0, result
