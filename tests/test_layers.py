"""Every import arrow points down: the library takes plain values, CLI modules stand alone.

Checked on the source with :mod:`ast` (what each module imports at any depth, lazy imports included).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_the_library_never_imports_argparse_or_a_cli():
    offenders = []
    for path in _modules("tokstudy"):
        rel = path.relative_to(ROOT)
        if rel.parts[1] == "cli" or rel.name in ("dispatch.py", "__main__.py"):
            continue
        bad = {m for m in _imports(path) if m == "argparse" or m.startswith(("tokstudy.cli", "pretrain.cli"))}
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert not offenders, "library modules that know the command line:\n" + "\n".join(offenders)


def test_cli_modules_do_not_import_each_other():
    shared = {"tokstudy.cli.arguments"}
    offenders = []
    for path in _modules("tokstudy/cli"):
        if path.name in ("__init__.py", "arguments.py"):
            continue
        bad = {m for m in _imports(path) if m.startswith("tokstudy.cli") and not m.startswith(tuple(shared))}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "CLI modules importing one another:\n" + "\n".join(offenders)


def test_pretrain_does_not_import_the_tokstudy_cli():
    offenders = [
        f"{p.relative_to(ROOT)}" for p in _modules("pretrain") if any(m.startswith("tokstudy.cli") for m in _imports(p))
    ]
    assert not offenders, f"pretrain imports the tokstudy command line: {offenders}"
