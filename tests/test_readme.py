"""README.md stays true: its Python example is the file a test executes, and its commands exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_python_example_is_the_executed_file():
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    example = (ROOT / "docs" / "api_example.py").read_text(encoding="utf-8").split('"""', 2)[2].strip()
    assert example in [b.strip() for b in blocks]


def test_every_readme_subcommand_exists():
    used = set(re.findall(r"^\s*(tokstudy|pretrain) ([a-z][a-z-]+)", README, flags=re.M))
    assert used, "no commands found in README"
    for prog, command in sorted(used):
        res = subprocess.run([sys.executable, "-m", prog, command, "--help"], capture_output=True, text=True)
        assert res.returncode == 0, f"`{prog} {command}` from README.md: {res.stderr[-500:]}"


def test_readme_flags_exist():
    # every --flag written after a tokstudy/pretrain command in README.md is accepted by that command
    for prog, command, rest in re.findall(r"^\s*(tokstudy|pretrain) ([a-z][a-z-]+)(.*(?:\\\n.*)*)", README, flags=re.M):
        flags = set(re.findall(r"(--[a-z][a-z-]+)", rest))
        if not flags:
            continue
        help_text = subprocess.run(
            [sys.executable, "-m", prog, command, "--help"], capture_output=True, text=True
        ).stdout
        for flag in flags:
            assert flag in help_text, f"README uses `{prog} {command} {flag}`, which --help does not list"


def test_make_targets_named_in_readme_exist():
    makefile = (ROOT / "Makefile").read_text()
    for target in set(re.findall(r"make ([a-z][a-z-]*[a-z])", README)):
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"make {target}"
