"""No import circle in the static import graph of ``tokstudy/``, ``pretrain/`` and the app, type hints included.

``tests/test_layers.py`` checks the arrows that run (``if TYPE_CHECKING:`` blocks left out). This is the
stricter reading a newcomer or a tool (an IDE's dependency view, pydeps) makes of the source: every import
written anywhere in a module is an arrow, at module level, inside functions, and under ``if TYPE_CHECKING:``.
Two modules that need each other even for their type hints are one concept, or a third module holds what
both need.

How an import statement becomes arrows (built with :mod:`ast`, relative imports resolved):

* ``import a.b.c``: an arrow to the longest of ``a.b.c``, ``a.b``, ``a`` that is a project module;
* ``from pkg import name``: an arrow to ``pkg.name`` when that is a module, else to ``pkg``; and when the
  importing module lives inside ``pkg`` itself, an arrow to ``pkg`` too: the names are read from the
  package's ``__init__``, and an ``__init__`` that re-exports its modules closes a circle through it
  (``from tokstudy.analysis.stats import intrinsic`` inside ``stats/intrinsic_table.py``).

A package's ``__init__`` that imports its own modules is an arrow like any other; that a submodule's import
first runs its parents' ``__init__`` is not an arrow (else every re-exporting package would be a circle).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the folders whose graph is checked
FOLDERS = ("tokstudy", "pretrain", "analysis_app")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_of(path: Path) -> str:
    name = _module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def static_imports(path: Path, modules: set[str]) -> set[str]:
    """The ``modules`` that ``path`` names in an import statement anywhere (see the module docstring)."""
    package = _package_of(path)
    out: set[str] = set()

    def longest(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(longest(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x / from ..y import z
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - (node.level - 1)], *([base] if base else [])])
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else longest(base))
            if path.name != "__init__.py" and (package == base or package.startswith(base + ".")):
                out.add(longest(base))  # the names come through this module's own package's __init__
    return out - {None}


def import_graph(folders: tuple[str, ...] = FOLDERS) -> dict[str, set[str]]:
    """Module -> the project modules it imports (see :func:`static_imports`)."""
    paths = {_module_name(p): p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))}
    return {name: static_imports(path, set(paths)) - {name} for name, path in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each circle as one loop of modules, ``[a, b, ..., a]``: the shortest loop through each strongly
    connected component of more than one module (Tarjan for the components, breadth-first for the loop)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(limit)
    return [_shortest_loop(graph, c) for c in components]


def _shortest_loop(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    start = min(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    loop = [v]
                    while loop[-1] != start:
                        loop.append(came_from[loop[-1]])
                    return [start, *reversed(loop[:-1]), start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no loop through {start} in its own component")  # pragma: no cover


def test_the_graph_sees_type_hints_lazy_imports_and_the_own_package(tmp_path, monkeypatch):
    pkg = tmp_path / "tokstudy" / "x"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from tokstudy.x.a import A\nfrom tokstudy.x.e import E\n")
    (pkg / "a.py").write_text("A = 1\ndef f():\n    from .b import B\n")
    (pkg / "b.py").write_text("from tokstudy.x.a import A\nB = 1\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tokstudy.x.d import D\n")
    (pkg / "d.py").write_text("import tokstudy.x.c\nD = 1\n")
    (pkg / "e.py").write_text("from tokstudy.x import f\nE = 1\n")  # f is a module, read through x's __init__
    (pkg / "f.py").write_text("F = 1\n")
    (pkg / "g.py").write_text("from tokstudy.x.f import F\n")  # its parent's __init__ runs first: no arrow
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    graph = import_graph(("tokstudy",))
    assert graph["tokstudy.x.a"] == {"tokstudy.x.b"} and graph["tokstudy.x.d"] == {"tokstudy.x.c"}
    assert graph["tokstudy.x.e"] == {"tokstudy.x", "tokstudy.x.f"} and graph["tokstudy.x.g"] == {"tokstudy.x.f"}
    assert sorted(circles(graph)) == [
        ["tokstudy.x", "tokstudy.x.e", "tokstudy.x"],
        ["tokstudy.x.a", "tokstudy.x.b", "tokstudy.x.a"],
        ["tokstudy.x.c", "tokstudy.x.d", "tokstudy.x.c"],
    ]


def test_no_import_circle_in_the_library_the_pretrainer_and_the_app():
    found = circles(import_graph())
    assert not found, "modules that import each other, type hints included (a loop each):\n" + "\n".join(
        " -> ".join(c) for c in found
    )
