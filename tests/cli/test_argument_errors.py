"""A bad argument is reported message first: ``tokstudy stats: error: argument --shredded: ...`` is the first
line of standard error, then one line saying where the options are; exit status 2, no usage block, for both
console scripts (run here as the real programs, in a process of their own)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

#: the arguments, and the first line expected
CASES = [
    (
        ["tokstudy", "stats", "--shredded", "0"],
        "tokstudy stats: error: argument --shredded: 0 pieces: a shredded word has 2 pieces or more (e.g. 3)",
    ),
    (
        ["tokstudy", "stats", "-d", "x", "--encoding", "nosuch"],
        "tokstudy stats: error: argument --encoding: unknown text encoding 'nosuch'",
    ),
    (
        ["tokstudy", "morph", "--gold-format", "conll"],
        "tokstudy morph: error: argument --gold-format: invalid choice: 'conll'",
    ),
    (["tokstudy", "segment", "-d", "x"], "tokstudy segment: error: the following arguments are required: --out/-o"),
    (["tokstudy", "stats", "--shreded", "3"], "tokstudy stats: error: unrecognized arguments: --shreded 3"),
    (["tokstudy", "no-such-command"], "tokstudy: error: argument COMMAND: invalid choice: 'no-such-command'"),
    (
        ["pretrain", "train", "--data", "d", "--tokenizer", "t", "--compile", "maybe"],
        "pretrain train: error: argument --compile: invalid choice: 'maybe'",
    ),
    (["pretrain", "train", "--data", "d"], "pretrain train: error: the following arguments are required: --tokenizer"),
]


@pytest.mark.parametrize(("argv", "first"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_the_message_comes_first(argv, first):
    done = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert lines[0].startswith(first), done.stderr
    prog = first.split(": error:")[0]
    assert lines[1:] == [f"see `{prog} --help`"]
    assert done.stdout == "" and "usage:" not in done.stderr


def test_docstring_examples():
    from tests.fixtures_doctest import assert_examples_pass

    assert_examples_pass("tokstudy.dispatch")
