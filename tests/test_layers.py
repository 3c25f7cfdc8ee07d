"""Every import arrow points down: the library takes plain values, CLI modules stand alone.

The floors, bottom to top::

    tokstudy            the torch-free library, the study included (tokstudy/study asks for a trainer
                        through the TrainerBackend protocol of tokstudy/study/backends.py)
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
* ``pretrain`` never imports ``analysis_app`` or ``tokstudy.cli``;
* inside the app, ``analysis_app/services`` is plain Python: it never imports streamlit, nor the app's
  layers above it (``components``, ``views``, ``app``, ``server``); the Streamlit caches live in
  ``analysis_app/components/cache.py``;
* the modules of ``tokstudy/cli`` and of ``pretrain/cli`` do not import each other (the package's
  ``__init__`` registers them; ``tokstudy/cli/arguments.py`` holds the options they share,
  ``pretrain/cli/fields.py`` the flags made from the config dataclasses).

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
