"""README.md's Layout block names only what exists: every folder, module and file it lists is in the checkout.

The block is read as the README writes it: a package in the first column (carried to the lines below it),
then ``folder/ (a, b: what b is, c)`` groups whose items are found anywhere under that folder (a module, a
subpackage or a file of that name), bare names (``config, model``) that are modules of the package itself,
``file.py`` files and ``folder/`` folders. A note in parentheses after a file (``server.py (make app)``), or
after a folder and two spaces (``cli/  (one file per command)``), is prose; so is what follows a colon.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _layout_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^## Layout\n+```\n(.*?)```", readme, flags=re.S | re.M)
    assert block, "README.md has no ## Layout block"
    return block.group(1).splitlines()


def _names_under(folder: Path) -> set[str]:
    return {p.stem if p.suffix == ".py" else p.name for p in folder.rglob("*") if "__pycache__" not in p.parts}


def _missing_in_line(package: Path, rest: str) -> list[str]:
    missing = []
    for folder, items in re.findall(r"([\w.]+)/ \(([^)]*)\)", rest):
        if not (package / folder).is_dir():
            missing.append(f"{package.name}/{folder}/")
            continue
        under = _names_under(package / folder)
        for item in items.split(","):
            name = IDENT.match(item.strip())
            if name and name.group() not in under:
                missing.append(f"{package.name}/{folder}/…/{name.group()}")
    rest = re.sub(r"[\w.]+/ \([^)]*\)", " ", rest)  # the groups, checked above
    rest = re.sub(r"\([^)]*\)", " ", rest)  # a note after a file or a module
    for token in re.split(r"[\s,]+", rest):
        if not token:
            continue
        path = package / token.rstrip("/")
        exists = path.exists() or path.with_suffix(".py").exists()
        if not exists:
            missing.append(f"{package.name}/{token}")
    return missing


def test_every_name_in_the_layout_block_exists():
    package, missing = None, []
    for line in _layout_lines():
        head, rest = line[:17].strip(), line[17:]
        if head:
            package = ROOT / head.rstrip("/")
            assert package.is_dir(), f"README Layout names {head}, which is not a folder of the checkout"
        if package is None or package.name == "tests":  # tests/ line: the top-level folders it names
            missing += [t for t in re.findall(r"([\w.]+)/", rest) if not (ROOT / t).is_dir()]
            continue
        missing += _missing_in_line(package, rest)
    assert not missing, f"README.md's Layout block names what the checkout does not have: {missing}"


def test_every_package_of_the_library_is_in_the_layout_block():
    text = "\n".join(_layout_lines())
    for package in ("tokstudy", "pretrain", "analysis_app"):
        for sub in sorted(p.name for p in (ROOT / package).iterdir() if (p / "__init__.py").exists()):
            assert f"{sub}/" in text, f"README.md's Layout block does not name {package}/{sub}/"
