"""The two console scripts answer --help and list their commands."""

from __future__ import annotations

import subprocess
import sys


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True)


def test_tokstudy_help_lists_commands():
    res = _run("tokstudy", "--help")
    assert res.returncode == 0
    assert "COMMAND" in res.stdout and "tokenization" in res.stdout


def test_tokstudy_without_command_prints_help():
    res = _run("tokstudy")
    assert res.returncode == 2
    assert "usage: tokstudy" in res.stdout


def test_pretrain_help():
    res = _run("pretrain", "--help")
    assert res.returncode == 0
    assert "ALBERT" in res.stdout
