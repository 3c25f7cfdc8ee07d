"""No product function is longer than a screen (issue 26 item 4): a pipeline is a list of named steps.

Counted with ``ast`` over the product packages (``tokstudy``, ``pretrain``, ``analysis_app``): a function's
length is its lines from ``def`` (decorators excluded) to its last line, docstring and comments included.
Benchmarks are not product code. No exception is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import PROJECT_ROOT

MAX_LINES = 80
PACKAGES = ("tokstudy", "pretrain", "analysis_app")


def long_functions(root: Path = PROJECT_ROOT) -> list[tuple[str, str, int, int]]:
    """``(file, function, first line, lines)`` of every product function over :data:`MAX_LINES` lines."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    n = node.end_lineno - node.lineno + 1
                    if n > MAX_LINES:
                        found.append((rel, node.name, node.lineno, n))
    return found


def test_no_product_function_over_80_lines():
    over = long_functions()
    assert not over, "functions over 80 lines (split them into named steps):\n" + "\n".join(
        f"  {file}:{line} {name} ({n} lines)" for file, name, line, n in over
    )


def test_the_count_sees_a_long_function(tmp_path):
    """The counter finds a function of 81 lines and passes one of 80 (the limit is inclusive)."""
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    (tmp_path / "tokstudy").mkdir()
    (tmp_path / "tokstudy" / "m.py").write_text(f"def short():\n{body}\n\n\ndef long():\n{body}\n    return 0\n")
    for package in PACKAGES[1:]:
        (tmp_path / package).mkdir()
    assert long_functions(tmp_path) == [("tokstudy/m.py", "long", 83, 81)]
