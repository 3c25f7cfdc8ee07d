"""Every import arrow points down: the library takes plain values, CLI modules stand alone.

The floors, bottom to top::

    tokstudy            the torch-free library: the analysis (tokstudy/analysis, data, tokenization), then
                        the report layer (tokstudy/report: the typed result and its files in
                        result.py, the assembler in assemble.py), then the study (tokstudy/study asks
                        for a trainer through the TrainerBackend protocol of tokstudy/study/backends.py)
    pretrain            the pre-trainer and fine-tuner (torch); imports tokstudy, and fulfils the
                        study's protocol in pretrain/study_backend.py
    tokstudy/cli/study.py, analysis_app
                        the top floor: `tokstudy study` hands the study the pre-trainer's backend; the app

Rules checked here:

* no module under ``tokstudy/`` imports ``pretrain``, ``analysis_app``, torch or its companions
  (transformers, deepspeed, streamlit) at any depth, lazy imports inside functions included; the one
  exception is ``tokstudy/cli/study.py``, which may import ``pretrain.study_backend`` and nothing else
  from those floors;
* the library outside ``tokstudy/cli`` (and the shared dispatcher) never imports argparse or a CLI;
* the report layer (``tokstudy/report``) never imports the study or a CLI; both reports are assembled by it:
  the study's report and ``tokstudy report`` import :mod:`tokstudy.report.assemble`, and only
  :mod:`tokstudy.report.result` names a file under a study's ``tables/``;
* the input layer (``tokstudy/inputs``: what the user named -> datasets and tokenizers) stands on
  ``tokstudy/data`` and ``tokstudy/tokenization`` only, they never import it, and the CLI, the study and the
  app load what the user named through it;
* ``pretrain`` never imports ``analysis_app`` or ``tokstudy.cli``;
* inside the app, ``analysis_app/services`` is plain Python: it never imports streamlit, nor the app's
  layers above it (``components``, ``views``, ``app``, ``server``); the Streamlit caches live in
  ``analysis_app/components/cache.py``;
* the modules of ``tokstudy/cli`` and of ``pretrain/cli`` do not import each other (the package's
  ``__init__`` registers them; ``tokstudy/cli/arguments/`` holds the options they share,
  ``pretrain/cli/fields.py`` the flags made from the config dataclasses);
* no import circle anywhere in ``tokstudy``, ``pretrain`` and ``analysis_app``, lazy imports inside
  functions included: two modules that need each other are one concept, or a third module holds what
  both need. Imports under ``if TYPE_CHECKING:`` never run and are not arrows; a package's
  ``__init__`` that re-exports its own modules is not one either (a module that imports its own
  package's ``__init__`` is).

Checked on the source with :mod:`ast`: every ``import`` and ``from ... import`` at any depth,
relative imports resolved, and module names handed to ``importlib.import_module`` as string constants.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Packages above the library, or too heavy for it.
UPPER = ("pretrain", "analysis_app", "torch", "transformers", "deepspeed", "streamlit")
#: The top-floor modules inside tokstudy/ and what they may import from UPPER.
TOP_FLOOR = {"tokstudy/cli/study.py": {"pretrain.study_backend", "pretrain.study_backend.PretrainBackend"}}
_DOTTED_UPPER = re.compile(rf"^(?:{'|'.join(UPPER)})(?:\.\w+)+$")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module (and ``module.name``) that ``path`` imports anywhere in its body."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x / from ..y import z
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED_UPPER.match(node.value):
            out.add(node.value)  # a module name for importlib.import_module
    return out


def _is_under(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_the_rules_see_lazy_and_relative_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "tokstudy" / "study"
    pkg.mkdir(parents=True)
    (pkg / "x.py").write_text(
        "def f():\n    import torch\n    from pretrain.train import train\n"
        "from . import config\nfrom ..analysis import table\nNAME = 'pretrain.study_backend'\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    got = _imports(pkg / "x.py")
    assert {"torch", "pretrain.train", "tokstudy.study.config", "tokstudy.analysis.table"} <= got
    assert "pretrain.study_backend" in got


def test_the_library_never_imports_an_upper_floor():
    offenders = []
    for path in _modules("tokstudy"):
        rel = path.relative_to(ROOT).as_posix()
        allowed = TOP_FLOOR.get(rel, set())
        bad = {m for m in _imports(path) if _is_under(m, UPPER) and m not in allowed}
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert not offenders, "tokstudy modules importing a floor above the library:\n" + "\n".join(offenders)


def test_the_top_floor_exception_is_used():
    # the exception is not a loophole: the study command really is where the backend is built
    for rel, allowed in TOP_FLOOR.items():
        assert _imports(ROOT / rel) & allowed, f"{rel} no longer imports {sorted(allowed)}: drop the exception"


def test_the_library_never_imports_argparse_or_a_cli():
    offenders = []
    for path in _modules("tokstudy"):
        rel = path.relative_to(ROOT)
        if rel.parts[1] == "cli" or rel.name in ("dispatch.py", "__main__.py"):
            continue
        bad = {m for m in _imports(path) if m == "argparse" or _is_under(m, ("tokstudy.cli", "pretrain.cli"))}
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert not offenders, "library modules that know the command line:\n" + "\n".join(offenders)


def test_cli_modules_do_not_import_each_other():
    offenders = []
    for package, shared in (("tokstudy/cli", {"tokstudy.cli.arguments"}), ("pretrain/cli", {"pretrain.cli.fields"})):
        dotted = package.replace("/", ".")
        for path in _modules(package):
            if path.name == "__init__.py" or _module_name(path) in shared:
                continue
            bad = {m for m in _imports(path) if _is_under(m, (dotted,)) and not _is_under(m, tuple(shared))}
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "CLI modules importing one another:\n" + "\n".join(offenders)


def test_pretrain_never_imports_the_app_or_the_tokstudy_cli():
    offenders = []
    for path in _modules("pretrain"):
        bad = {m for m in _imports(path) if _is_under(m, ("analysis_app", "tokstudy.cli"))}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "pretrain importing a floor above it:\n" + "\n".join(offenders)


def test_app_services_never_import_streamlit_or_the_layers_above():
    above = ("streamlit", "analysis_app.components", "analysis_app.views", "analysis_app.app", "analysis_app.server")
    offenders = []
    for path in _modules("analysis_app/services"):
        bad = {m for m in _imports(path) if _is_under(m, above)}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "app services importing streamlit or a layer above them:\n" + "\n".join(offenders)


def _runtime_imports(path: Path, modules: set[str]) -> set[str]:
    """The ``modules`` that ``path`` imports when it runs: imports at any depth, not under ``if TYPE_CHECKING:``.

    ``from package import name`` is an arrow to ``package.name`` when that is a module, else to ``package``;
    ``import a.b.c`` to the longest of ``a.b.c``, ``a.b``, ``a`` that is one of ``modules``.
    """
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    out: set[str] = set()

    def longest(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(longest(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            out.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else longest(base) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out - {None}


# Import circles are checked in tests/test_import_graph.py, on the static graph (imports inside functions and
# type-only ones included), which holds every circle of the run-time graph and more.


#: the report layer: the typed result, its files and the assembler, between the analysis and the study
REPORT_LAYER = "tokstudy/report"
#: the modules that assemble a report, and the assembler and serialisation each must go through
ASSEMBLED_BY = {
    "tokstudy/study/report_sections.py": {"tokstudy.report.assemble", "tokstudy.report.result"},
    "tokstudy/study/analysis_stage.py": {"tokstudy.report.result", "tokstudy.report.build"},
    "tokstudy/report/writer.py": {"tokstudy.report.assemble", "tokstudy.report.result", "tokstudy.report.build"},
    "tokstudy/cli/report.py": {"tokstudy.report.writer"},
}
#: a path or a Markdown link to one of a study's table files, as a string in the code (not in a docstring)
_TABLES_PATH = re.compile(r"(?:^|\]\()tables/\w+\.(?:json|csv|md)")


def test_the_report_layer_never_imports_the_study_or_a_cli():
    offenders = []
    for path in _modules(REPORT_LAYER):
        bad = {m for m in _imports(path) if _is_under(m, ("tokstudy.study", "tokstudy.cli", "tokstudy.dispatch"))}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "the report layer importing a floor above it:\n" + "\n".join(offenders)


def test_both_reports_go_through_the_one_assembler_and_serialisation():
    for rel, needed in ASSEMBLED_BY.items():
        path = ROOT / rel
        got = _runtime_imports(path, {_module_name(p) for p in _modules("tokstudy")})
        assert needed <= got, f"{rel} no longer imports {sorted(needed - got)}"


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of ``path`` outside docstrings, with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_the_check_sees_table_paths_and_skips_docstrings(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""Reads ``tables/x.json``."""\nP = "tables/x.json"\nL = f"[csv](tables/y.csv) {P}"\n')
    found = [s for _, s in _code_strings(path) if _TABLES_PATH.search(s)]
    assert found == ["tables/x.json", "[csv](tables/y.csv) "]


def test_the_table_files_are_named_in_one_module():
    """A study's tables are written and read in tokstudy/report/result.py; no other module builds a path or a
    link to one of them from a literal (``"tables/scores.json"``, ``[csv](tables/x.csv)``)."""
    offenders = []
    for path in _modules("tokstudy"):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "tokstudy/report/result.py":
            continue
        offenders += [f"{rel}:{line}: {s!r}" for line, s in _code_strings(path) if _TABLES_PATH.search(s)]
    assert not offenders, "table files named outside tokstudy/report/result.py:\n" + "\n".join(offenders)


#: the input layer: what the user named -> datasets and tokenizers, above data/tokenization, below the rest
INPUT_LAYER = "tokstudy/inputs"
#: all that the input layer may import from tokstudy
INPUT_STANDS_ON = (
    "tokstudy.inputs",
    "tokstudy.data",
    "tokstudy.tokenization",
    "tokstudy.datalocation",
    "tokstudy.errors",
)
#: the front ends (CLI, study, app) that load what the user named, each through the input layer
LOADED_THROUGH_INPUTS = (
    "tokstudy/cli/arguments/loading.py",
    "tokstudy/study/sources.py",
    "analysis_app/services/loading.py",
)


def test_the_input_layer_stands_on_data_and_tokenization_only():
    offenders = []
    for path in _modules(INPUT_LAYER):
        bad = {m for m in _imports(path) if _is_under(m, ("tokstudy",)) and not _is_under(m, INPUT_STANDS_ON)}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert not offenders, "the input layer importing the analysis, report, study or a CLI:\n" + "\n".join(offenders)


def test_data_and_tokenization_never_import_the_input_layer():
    offenders = []
    for folder in ("tokstudy/data", "tokstudy/tokenization"):
        for path in _modules(folder):
            if {m for m in _imports(path) if _is_under(m, ("tokstudy.inputs",))}:
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, "modules below the input layer importing it:\n" + "\n".join(offenders)


def test_front_ends_load_inputs_through_the_input_layer():
    for rel in LOADED_THROUGH_INPUTS:
        assert {m for m in _imports(ROOT / rel) if _is_under(m, ("tokstudy.inputs",))}, (
            f"{rel}: not via tokstudy.inputs"
        )
