"""Every output option of every ``tokstudy`` command is checked as it is parsed, before any work: a folder where
a file is expected (or a file where a folder is), a file standing where a folder must be made, a folder that
is not writable. Each is an argument error: exit status 2, and the first line names the command, the option
and the path.

The list of output options below is written out by hand from ``tokstudy COMMAND --help``: it is the reference
the parser's own declarations are compared with, so an output option added without its check fails here.
"""

from __future__ import annotations

import argparse
import os

import pytest

from tokstudy.cli import build_parser, main
from tokstudy.cli.arguments import OutputKind, OutputType
from tokstudy.cli.arguments import outputs as outputs_module

FILE, STEM, FOLDER = OutputKind.FILE, OutputKind.STEM, OutputKind.FOLDER

#: command -> {output option: what it names}, from each command's --help
OUTPUTS = {
    "train-tokenizer": {"--output": FOLDER},
    "segment": {"--out": FILE},
    "stats": {
        "--json": FILE,
        "--csv": FILE,
        "--languages-csv": FILE,
        "--languages-figure": STEM,
        "--shredded-csv": FILE,
    },
    "corpus-stats": {"--json": FILE, "--csv": FILE},
    "correlate": {"--json": FILE, "--csv": FILE},
    "correlate-protocols": {"--json": FILE, "--csv": FILE, "--markdown": FILE},
    "attribute": {"--json": FILE, "--csv": FILE, "--figure": STEM},
    "examples": {"--csv": FILE, "--json": FILE},
    "report": {"--out": FOLDER},
    "parity": {"--json": FILE, "--csv": FILE},
    "morph": {"--csv": FILE, "--json": FILE},
    "pieces": {"--csv": FILE, "--json": FILE},
    "study": {"--output": FOLDER, "--report-only": FOLDER},
}

#: command -> the other arguments it needs; none of the inputs exists, so had any work started the error
#: would be about them (a missing file: exit status 1), not about the output
BEFORE = {
    "train-tokenizer": ["--input", "no-input.txt", "--vocab-size", "100"],
    "segment": ["-d", "no/such.conll", "-t", "no-tok"],
    "stats": ["-d", "no/such.conll", "-t", "no-tok"],
    "corpus-stats": ["-t", "no-tok", "--corpus", "no-corpus"],
    "correlate": ["-d", "no/such.conll", "-t", "no-tok", "-p", "no.tsv"],
    "correlate-protocols": ["-d", "no/such.conll", "-t", "no-tok", "-p", "no.tsv"],
    "attribute": ["-d", "no/such.conll", "-t", "no-tok", "-p", "no.tsv", "--no-fit-process"],
    "examples": ["-d", "no/such.conll", "-t", "no-tok"],
    "report": ["-d", "no/such.conll", "-t", "no-tok"],
    "parity": ["-t", "no-tok", "--parallel-dir", "no-dir"],
    "morph": ["-g", "no-gold.tsv", "-t", "no-tok"],
    "pieces": ["no.pieces.tsv"],
    "study": ["no-such-config.yaml"],
}

CASES = [(command, option, kind) for command, options in OUTPUTS.items() for option, kind in options.items()]


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_command_is_listed():
    assert set(_commands()) == set(OUTPUTS) == set(BEFORE)


@pytest.mark.parametrize("command", list(OUTPUTS))
def test_the_parser_declares_exactly_the_output_options_of_the_help(command):
    parser = _commands()[command]
    declared = {a.option_strings[0]: a.type.kind for a in parser._actions if isinstance(a.type, OutputType)}
    assert declared == OUTPUTS[command]


def _refused(command: str, option: str, value, capsys) -> str:
    """The first line of what the command says when ``option`` is ``value``; it must exit 2 doing no work."""
    with pytest.raises(SystemExit) as exit_:
        main([command, *BEFORE[command], option, str(value)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert "Traceback" not in err and len(err.splitlines()) <= 2, err
    first = err.splitlines()[0]
    # argparse names an option with its other spellings too (--out/-o)
    assert first.startswith(f"tokstudy {command}: error: argument {option}"), first
    return first


@pytest.mark.parametrize(("command", "option", "kind"), CASES)
def test_a_folder_where_a_file_is_expected_or_the_reverse(command, option, kind, tmp_path, capsys):
    if kind is FOLDER:
        taken = tmp_path / "taken"
        taken.write_text("keep me\n")
        assert _refused(command, option, taken, capsys).endswith(f": {taken} is a file; expected a folder")
        assert taken.read_text() == "keep me\n"
        return
    # a figure's stem names STEM.png and STEM.svg: a folder under one of those names is in the way
    taken = tmp_path / "fig.png" if kind is STEM else tmp_path
    taken.mkdir(exist_ok=True)
    value = tmp_path / "fig" if kind is STEM else tmp_path
    assert _refused(command, option, value, capsys).endswith(f": {taken} is a folder; expected a file name")


@pytest.mark.parametrize(("command", "option", "kind"), CASES)
def test_a_file_standing_where_a_folder_must_be_made(command, option, kind, tmp_path, capsys):
    blocker = tmp_path / "results"
    blocker.write_text("a file where a folder is expected\n")
    target = blocker / "sub" / "out.csv"
    first = _refused(command, option, target, capsys)
    assert first.endswith(f": cannot write {target}: {blocker} is a file, not a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


@pytest.mark.parametrize(("command", "option", "kind"), CASES)
def test_a_folder_that_is_not_writable(command, option, kind, tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o555)
    else:  # root may write anywhere: the permission the check reads is taken away instead
        real = os.access
        monkeypatch.setattr(outputs_module.os, "access", lambda p, mode: real(p, mode) and os.fspath(p) != str(locked))
    target = locked / "new" / "out.csv"
    try:
        first = _refused(command, option, target, capsys)
    finally:
        locked.chmod(0o755)
    assert first.endswith(f": cannot write {target}: {locked} is not writable (permission denied)")
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize(("command", "option", "kind"), [c for c in CASES if c[2] is not FOLDER])
def test_a_missing_folder_is_no_error(command, option, kind, tmp_path, capsys):
    """The writers make the folders an output needs: the command gets past the check to its (missing) inputs."""
    code = main([command, *BEFORE[command], option, str(tmp_path / "new" / "deeper" / "out.csv")])
    err = capsys.readouterr().err
    assert code == 1 and f"argument {option}" not in err, err
    assert not (tmp_path / "new").exists()
