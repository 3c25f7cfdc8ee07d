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


def test_closed_pipe_is_not_an_error(tmp_path):
    # `tokstudy --help | head -1`: the command must not print a traceback when the reader leaves early
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\nfrom tokstudy import dispatch\nimport argparse\n"
            "p = argparse.ArgumentParser(prog='x')\n"
            "p.set_defaults(func=lambda a: [print('line ' * 50) for _ in range(20000)] and 0, command='c')\n"
            "sys.exit(dispatch.run(p, [], lambda: (ValueError,)))",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 0 and "Traceback" not in err
