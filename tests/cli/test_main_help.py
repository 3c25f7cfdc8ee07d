"""The two console scripts answer --help and list their commands."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import tokstudy.cli
from tokstudy import dispatch
from tokstudy.cli import COMMANDS, build_parser, main


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


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_every_command_of_the_table_is_its_modules_parser():
    # the table --help lists is what each module registers: same name, same help line, same order
    registered = _subparsers(build_parser())
    assert [c.dest for c in registered._choices_actions] == [c.name for c in COMMANDS]
    assert [c.help for c in registered._choices_actions] == [c.help for c in COMMANDS]
    for command in COMMANDS:
        sub = dispatch.ArgumentParser(prog="tokstudy").add_subparsers()
        importlib.import_module(f"tokstudy.cli.{command.module}").register(sub)
        assert list(sub.choices) == [command.name], command.module


def test_every_command_module_is_in_the_table():
    folder = Path(tokstudy.cli.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    assert modules == {c.module for c in COMMANDS}


def test_help_imports_no_command_module():
    code = "import sys\nfrom tokstudy.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
    res = _run_code(code + "print(' '.join(sys.modules), file=sys.stderr)")
    loaded = set(res.stderr.split())
    assert "usage: tokstudy" in res.stdout
    commands = {f"tokstudy.cli.{c.module}" for c in COMMANDS} | {"tokstudy.cli.arguments"}
    assert not commands & loaded


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
def test_command_help_is_the_full_help_of_its_parser(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    full = _subparsers(build_parser()).choices[command].format_help()
    assert capsys.readouterr().out == full and "--help" in full


def test_an_unknown_command_is_refused_with_the_list(capsys):
    assert _exit_of(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'no-such-command'" in err and "'stats'" in err


def _exit_of(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def _run_code(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
