"""An import inside a function says why it is there: ``# deferred: <reason>``.

Imports at module top show the real dependency graph to readers and tools; an import is deferred only
for a heavy or optional package (matplotlib, scipy.stats, statsmodels, dask, torch, tiktoken, datasets,
the C++/Rust tokenizer extensions) or a module that pulls one in where ``tokstudy --help`` would pay for
it. The reason sits on the import's line or on a comment line just above the run of imports it covers.

Enforced for the library, the pre-trainer and the app (:data:`CLEANED`), every file;
``python tests/test_deferred_imports.py`` prints the function-level imports still without a reason per folder.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "# deferred:"
#: files and folders whose function-level imports must carry a reason
CLEANED = ("tokstudy", "pretrain", "analysis_app")


def unexplained_imports(source: str) -> list[int]:
    """Line numbers of the imports inside functions that carry no ``# deferred:`` reason.

    A run of consecutive import statements is explained by the reason on the line above its first
    statement, or on any of its own lines.

    >>> unexplained_imports("def f():\\n    import os\\n")
    [2]
    >>> unexplained_imports("def f():\\n    # deferred: heavy\\n    import numpy\\n    import scipy\\n")
    []
    >>> unexplained_imports("import os\\ndef f():\\n    import json  # deferred: why not\\n")
    []
    """
    lines = source.splitlines()
    found: set[int] = set()
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            for body in _bodies(node):
                for run in _import_runs(body):
                    text = lines[run[0].lineno - 2 : run[-1].end_lineno]
                    if not any(MARK in line for line in text):
                        found.update(stmt.lineno for stmt in run)
    return sorted(found)


def _bodies(node: ast.AST):
    for name in ("body", "orelse", "finalbody", "handlers"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value


def _import_runs(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    runs, current = [], []
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            current.append(stmt)
        elif current:
            runs.append(current)
            current = []
    return runs + ([current] if current else [])


def _files(entry: str) -> list[Path]:
    path = ROOT / entry
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]


def test_cleaned_folders_give_each_deferred_import_a_reason():
    offenders = []
    for entry in CLEANED:
        for path in _files(entry):
            rel = path.relative_to(ROOT).as_posix()
            source = path.read_text(encoding="utf-8")
            offenders += [f"{rel}:{n}: {source.splitlines()[n - 1].strip()}" for n in unexplained_imports(source)]
    assert not offenders, f"imports inside functions without a '{MARK} <reason>' comment:\n" + "\n".join(offenders)


def test_the_check_sees_nested_and_branch_imports():
    source = (
        "def f():\n    if x:\n        import a\n"
        "    def g():\n        try:\n            import b\n        finally:\n            pass\n"
    )
    assert unexplained_imports(source) == [3, 6]


def own_function_imports(source: str) -> list[int]:
    """Line numbers of the imports of tokstudy's own modules inside functions.

    >>> own_function_imports("import json\\ndef f():\\n    from tokstudy.data import types\\n    import os\\n")
    [3]
    """
    found = set()
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tokstudy":
                    found.add(node.lineno)
                elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tokstudy" for a in node.names):
                    found.add(node.lineno)
    return sorted(found)


def test_command_modules_import_the_library_at_their_top():
    # `tokstudy --help` imports no command module (tokstudy/cli/__init__.py lists them in a table), so a command
    # module has no start-up to save by deferring the library. The package's __init__ (which --help runs) and the
    # helpers every command shares (tokstudy/cli/arguments/) may still defer what only some commands use.
    offenders = []
    for path in sorted((ROOT / "tokstudy" / "cli").glob("*.py")):
        if path.name == "__init__.py":
            continue
        lines = own_function_imports(path.read_text(encoding="utf-8"))
        offenders += [f"{path.relative_to(ROOT).as_posix()}:{n}" for n in lines]
    assert not offenders, "tokstudy modules imported inside a command's functions:\n" + "\n".join(offenders)


def counts_per_folder() -> dict[str, int]:
    """The function-level imports without a reason, per folder (the next clean-up's list)."""
    counts: Counter[str] = Counter()
    for path in sorted(p for entry in CLEANED for p in (ROOT / entry).rglob("*.py")):
        folder = path.parent.relative_to(ROOT).as_posix()
        counts[folder] += len(unexplained_imports(path.read_text(encoding="utf-8")))
    return {folder: n for folder, n in sorted(counts.items()) if n}


if __name__ == "__main__":  # python tests/test_deferred_imports.py
    for folder, n in counts_per_folder().items():
        print(f"{folder}: {n}")
