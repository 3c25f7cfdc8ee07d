"""No function is longer than a screen, no file longer than one concept (issues 26 item 4 and 35 item 8).

Counted with ``ast`` over the product packages (``tokstudy``, ``pretrain``, ``analysis_app``) and the benchmarks
(``benchmarks/``: they are read and changed as often as the product, so the same limits hold there). A function's
length is its lines from ``def`` (decorators excluded) to its last line, docstring and comments included; a file's
is its number of lines. A file over :data:`MAX_FILE_LINES` is split where its concepts split, never trimmed just
under the limit: :data:`LONG_FILES` would name, with the reason, a file that truly is one concept (none today).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import PROJECT_ROOT

MAX_LINES = 80
MAX_FILE_LINES = 400
PACKAGES = ("tokstudy", "pretrain", "analysis_app", "benchmarks")
#: files allowed over :data:`MAX_FILE_LINES`, each with why it is one concept: ``{"path": "reason"}``
LONG_FILES: dict[str, str] = {}


def python_files(root: Path = PROJECT_ROOT) -> list[Path]:
    """Every ``.py`` file of :data:`PACKAGES` under ``root``."""
    return [path for package in PACKAGES for path in sorted((root / package).rglob("*.py"))]


def long_functions(root: Path = PROJECT_ROOT) -> list[tuple[str, str, int, int]]:
    """``(file, function, first line, lines)`` of every function over :data:`MAX_LINES` lines."""
    found = []
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_LINES:
                    found.append((rel, node.name, node.lineno, n))
    return found


def long_files(root: Path = PROJECT_ROOT) -> list[tuple[str, int]]:
    """``(file, lines)`` of every file over :data:`MAX_FILE_LINES` lines that :data:`LONG_FILES` does not name."""
    found = []
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_FILE_LINES and rel not in LONG_FILES:
            found.append((rel, n))
    return found


def test_no_function_over_80_lines():
    over = long_functions()
    assert not over, "functions over 80 lines (split them into named steps):\n" + "\n".join(
        f"  {file}:{line} {name} ({n} lines)" for file, name, line, n in over
    )


def test_no_file_over_400_lines():
    over = long_files()
    assert not over, "files over 400 lines (split them where their concepts split):\n" + "\n".join(
        f"  {file} ({n} lines)" for file, n in over
    )


def test_every_allowed_long_file_exists_and_is_long():
    """An allowance outlives no split: each file of :data:`LONG_FILES` is there and still over the limit."""
    for rel in LONG_FILES:
        path = PROJECT_ROOT / rel
        assert path.is_file(), f"{rel}: in LONG_FILES but not there"
        assert len(path.read_text(encoding="utf-8").splitlines()) > MAX_FILE_LINES, f"{rel}: no longer long"


def test_the_count_sees_a_long_function(tmp_path):
    """The counter finds a function of 81 lines and passes one of 80 (the limit is inclusive), benchmarks too."""
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    (tmp_path / "tokstudy" / "m.py").write_text(f"def short():\n{body}\n\n\ndef long():\n{body}\n    return 0\n")
    (tmp_path / "benchmarks" / "b.py").write_text(f"def long():\n{body}\n    return 0\n")
    assert long_functions(tmp_path) == [("tokstudy/m.py", "long", 83, 81), ("benchmarks/b.py", "long", 1, 81)]


def test_the_count_sees_a_long_file(tmp_path):
    """A file of 401 lines is found, one of 400 passes (the limit is inclusive)."""
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    (tmp_path / "pretrain" / "ok.py").write_text("x = 0\n" * 400)
    (tmp_path / "benchmarks" / "long.py").write_text("x = 0\n" * 401)
    assert long_files(tmp_path) == [("benchmarks/long.py", 401)]
