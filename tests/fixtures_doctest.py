"""Run a module's docstring examples as a test (the per-package ``test_doctests.py`` files list the modules)."""

from __future__ import annotations

import doctest
import importlib


def assert_examples_pass(module: str, *, optionflags: int = 0) -> None:
    """Every example in ``module``'s docstrings gives the output written under it, and there is at least one."""
    result = doctest.testmod(importlib.import_module(module), optionflags=optionflags)
    assert result.failed == 0 and result.attempted > 0, f"{module}: {result}"
