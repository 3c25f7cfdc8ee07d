"""Relative data locations work from anywhere, and CI runs the README's command as a newcomer does (issue 15 item 1)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from tests.conftest import PROJECT_ROOT, corpus_path
from tokstudy import datalocation
from tokstudy.datalocation import absolute, data_root


def test_relative_env_location_is_absolute_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "corpora" / "conll2003_en").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOKSTUDY_DATA", "corpora")
    root = data_root()
    assert root.is_absolute() and root == (tmp_path / "corpora").resolve()
    monkeypatch.chdir("/")  # the resolved path keeps meaning the same folder
    assert datalocation.has_corpus("conll2003", root)


def test_relative_location_written_from_the_checkout_works_from_another_directory(tmp_path, monkeypatch):
    # the Makefile's default, ../shared/data, is relative to the checkout; a process that runs elsewhere finds it
    monkeypatch.chdir(tmp_path)
    assert absolute("tokstudy") == (PROJECT_ROOT / "tokstudy").resolve()
    assert absolute("no/such/dir") == tmp_path.resolve() / "no" / "such" / "dir"


def test_makefile_default_relative_path_loads_a_dataset(monkeypatch):
    corpus_path("conll2003")  # skips without the shared data
    shared = PROJECT_ROOT.parent / "shared" / "data"
    if not shared.is_dir():
        pytest.skip(f"no ../shared/data beside the checkout ({shared})")
    from tokstudy.inputs import load_dataset_spec

    monkeypatch.chdir(PROJECT_ROOT)
    monkeypatch.setenv("TOKSTUDY_DATA", "../shared/data")
    assert len(load_dataset_spec("conll2003:dev")) == 3250
    monkeypatch.chdir(PROJECT_ROOT / "docs")  # and from a sub-directory, where ../shared/data is something else
    assert len(load_dataset_spec("conll2003:dev")) == 3250


def test_cli_with_relative_data_dir(monkeypatch, capsys):
    corpus_path("conll2003")
    shared = PROJECT_ROOT.parent / "shared" / "data"
    if not shared.is_dir():
        pytest.skip(f"no ../shared/data beside the checkout ({shared})")
    from tokstudy.cli import main

    monkeypatch.chdir(PROJECT_ROOT)
    monkeypatch.delenv("TOKSTUDY_DATA", raising=False)
    # a bad tokenizer path fails after the data location was accepted: the message is about the tokenizer
    code = main(["stats", "-d", "conll2003:dev", "--data-dir", "../shared/data", "-t", "no-such-tok", "--no-progress"])
    assert code == 1 and "no-such-tok: tokenizer not found" in capsys.readouterr().err


def test_ci_runs_make_test_with_no_tokstudy_variable():
    script = (PROJECT_ROOT / ".ci" / "run").read_text()
    commands = [ln.strip() for ln in script.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert commands[-1] == "make test"
    assert not re.search(r"(export\s+|^\s*)TOKSTUDY_\w*=", script, re.MULTILINE), (
        "CI must not set what the README does not"
    )
    assert "apt-get install" in script and "chromium" in script  # the browser tests keep their browser


def test_makefile_default_data_path_is_the_relative_one():
    makefile = (PROJECT_ROOT / "Makefile").read_text()
    assert re.search(r"^DATA\s*\?=.*\$\(wildcard \.\./shared/data\)", makefile, re.MULTILINE)
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    out = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", "test"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    if out.returncode != 0:
        pytest.skip(f"make -n failed: {out.stderr[:200]}")
    expected = "../shared/data" if (PROJECT_ROOT.parent / "shared" / "data").is_dir() else ""
    assert f"TOKSTUDY_DATA={expected} " in out.stdout


def _linked_shared(tmp_path):
    """``tmp/work/{main,shared}`` with ``shared`` a symlink to ``tmp/elsewhere/shared`` (a fresh clone's layout)."""
    real = tmp_path / "elsewhere" / "shared" / "data" / "conll2003_en"
    real.mkdir(parents=True)
    (tmp_path / "work" / "main").mkdir(parents=True)
    (tmp_path / "work" / "shared").symlink_to(tmp_path / "elsewhere" / "shared", target_is_directory=True)
    return tmp_path / "work" / "main"


def test_a_symlinked_data_location_is_named_as_given_not_as_its_target(tmp_path, monkeypatch):
    """Issue 33 item 7: with ``../shared`` a symlink, the location is the link's path, not its target's."""
    checkout = _linked_shared(tmp_path)
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("TOKSTUDY_DATA", "../shared/data")
    root = data_root()
    assert root == tmp_path / "work" / "shared" / "data" and root.is_absolute()
    assert datalocation.has_corpus("conll2003", root)
    assert datalocation.shown_path(root) == "../shared/data"
    assert datalocation.shown_path(root / "conll2003_en" / "eng.testb") == "conll2003_en/eng.testb"
    # the link's target, given as such, is still shown relative to the data location
    target = (tmp_path / "elsewhere" / "shared" / "data" / "conll2003_en" / "eng.testb").resolve()
    assert datalocation.shown_path(target) == "conll2003_en/eng.testb"


def _lenient_note(spec: str, data_dir=None):
    from tokstudy.data.formats import FileOptions
    from tokstudy.inputs import DatasetRequest, load_inputs

    request = DatasetRequest([spec], data_dir=data_dir, options=FileOptions(scheme="IOB2", lenient=True))
    (report,) = load_inputs(datasets=request).repairs
    return report


def test_a_note_names_a_file_as_the_user_typed_it(tmp_path, monkeypatch):
    """A file given by an absolute path outside the working directory is named by that path on the terminal (not
    climbed to from here, ``../../tmp/...``); what goes into files that travel still names no absolute path."""
    path = tmp_path / "mine" / "f.conll"
    path.parent.mkdir()
    path.write_text("Paris I-LOC\nis O\n", encoding="utf-8")
    monkeypatch.chdir(PROJECT_ROOT)
    monkeypatch.delenv("TOKSTUDY_DATA", raising=False)
    report = _lenient_note(str(path))
    assert report.text.startswith(f"1 tag repaired in {path} (lenient reading):")
    assert f"  {path}:1: 'I-LOC' after the sentence start read as 'B-LOC'" in report.text
    assert "../" not in report.text
    relative = os.path.relpath(path, PROJECT_ROOT)
    assert report.log.source == relative and report.log.first[0].where() == f"{relative}:1"
    # typed relative to the working directory: named so, in both
    monkeypatch.chdir(tmp_path)
    report = _lenient_note("mine/f.conll")
    assert report.text.startswith("1 tag repaired in mine/f.conll (lenient reading):")
    assert report.log.source == "mine/f.conll"


def test_said_path_is_as_typed_but_inside_the_data_location(tmp_path, monkeypatch):
    root = tmp_path / "corpora"
    (root / "conll2003_en").mkdir(parents=True)
    monkeypatch.setenv("TOKSTUDY_DATA", str(root))
    monkeypatch.chdir(PROJECT_ROOT)
    assert datalocation.said_path(root / "conll2003_en" / "eng.testb") == "conll2003_en/eng.testb"
    assert datalocation.said_path(tmp_path / "other" / "f.conll") == str(tmp_path / "other" / "f.conll")
    assert datalocation.said_path("../x/f.conll") == "../x/f.conll"
    assert datalocation.shown_path(tmp_path / "other" / "f.conll") == os.path.relpath(tmp_path / "other" / "f.conll")
