"""Each attempt at a stage is recorded as it runs, so that a stage whose process was SIGKILLed and that ran again
says so in its done-record and counts the killed attempt's time (tokstudy/study/attempts.py, StageRunner).

The killed processes are real: a child Python process runs a stage (or a bare recorded block), the test SIGKILLs
it at a time it measures itself, and compares what the record says with that time.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures_doctest import assert_examples_pass
from tokstudy.study.attempts import ATTEMPTS_DIR, AttemptEnd, interval, read_attempts, recorded
from tokstudy.study.stages import StageRunner

ROOT = Path(__file__).resolve().parents[2]
#: a child that runs stage "pretrain" of a StageRunner at argv[1], writing "started" once the stage body runs
STAGE_CHILD = """
import sys, time
from pathlib import Path
from tokstudy.study.stages import StageRunner

def body(work):
    (work / "started").write_text(str(time.time()))
    time.sleep(60)
    return {}

StageRunner(sys.argv[1], log=lambda m: None).run("pretrain", {"steps": 10}, body)
"""


def _start(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT)


def _wait_for(path: Path, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while not path.is_file():
        assert proc.poll() is None and time.time() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def _kill(proc: subprocess.Popen) -> float:
    os.kill(proc.pid, signal.SIGKILL)
    killed = time.time()
    proc.wait()
    return killed


def test_a_killed_stage_is_one_lost_attempt_whose_time_runs_to_its_last_record(tmp_path):
    child = _start(STAGE_CHILD, str(tmp_path))
    try:
        _wait_for(tmp_path / "pretrain" / "started", child)
        time.sleep(2.0)
    finally:
        killed = _kill(child)
    ran = killed - float((tmp_path / "pretrain" / "started").read_text())
    pipe = StageRunner(tmp_path, log=lambda m: None)
    assert pipe.run("pretrain", {"steps": 10}, lambda work: {"model": "m"}) == {"model": "m"}
    lost, final = pipe.attempts("pretrain")
    assert (lost.end, final.end) == (AttemptEnd.LOST, AttemptEnd.RETURNED)
    assert lost.where == f"process {child.pid} on {socket.gethostname()}" and lost.started < final.started
    # rewritten every 0.5 s this early: short of the time it ran by less than that (and a loaded machine's slack)
    assert ran - 0.5 - 0.5 <= lost.seconds <= ran + 0.5
    record = json.loads((tmp_path / ".stages" / "pretrain.json").read_text())
    assert [a["end"] for a in record["attempts"]] == ["lost", "returned"]


def test_an_attempt_that_raised_is_recorded_as_such_and_the_next_one_sees_it(tmp_path):
    pipe = StageRunner(tmp_path, log=lambda m: None)

    def fails(work):
        time.sleep(0.2)
        raise RuntimeError("a GPU error")

    with pytest.raises(RuntimeError):
        pipe.run("finetune", {"seed": 0}, fails)
    pipe.run("finetune", {"seed": 0}, lambda work: {})
    raised, returned = pipe.attempts("finetune")
    assert (raised.end, returned.end) == (AttemptEnd.RAISED, AttemptEnd.RETURNED) and raised.seconds >= 0.2


def test_a_stage_run_once_has_one_attempt_and_a_stale_folder_takes_its_attempts_away(tmp_path):
    pipe = StageRunner(tmp_path, log=lambda m: None)
    pipe.run("tok", {"vocab": 100}, lambda work: {})
    assert [a.end for a in pipe.attempts("tok")] == [AttemptEnd.RETURNED]
    pipe.run("tok", {"vocab": 200}, lambda work: {})  # other settings: the folder is wiped, attempts with it
    assert len(pipe.attempts("tok")) == 1
    assert StageRunner(tmp_path, log=lambda m: None).attempts("never-run") == ()


def test_the_record_is_rewritten_as_the_attempt_runs(tmp_path):
    child = _start(
        "import sys, time\nfrom pathlib import Path\nfrom tokstudy.study.attempts import recorded\n"
        "with recorded(Path(sys.argv[1]), 'child'):\n    time.sleep(60)\n",
        str(tmp_path),
    )
    try:
        _wait_for_record(tmp_path, child)
        time.sleep(1.6)
        (seen,) = read_attempts(tmp_path)
        since_start = time.time() - seen.started  # the most the record may claim: the time it has existed
    finally:
        _kill(child)
    # rewritten while running, not only at start, and never claiming more than has passed
    assert seen.end is AttemptEnd.LOST and 0.9 <= seen.seconds <= since_start


def _wait_for_record(work: Path, proc: subprocess.Popen) -> None:
    deadline = time.time() + 60
    while not read_attempts(work):
        assert proc.poll() is None and time.time() < deadline, "no attempt record appeared"
        time.sleep(0.02)


def test_interval_bounds_and_unreadable_records(tmp_path):
    assert [interval(t) for t in (0.0, 4.0, 50.0, 300.0, 1e6)] == [0.5, 0.5, 5.0, 30.0, 30.0]
    with recorded(tmp_path, "here"):
        pass
    (tmp_path / ATTEMPTS_DIR / "torn.json").write_text("{")
    (tmp_path / ATTEMPTS_DIR / "notes.txt").write_text("x")
    assert [a.where for a in read_attempts(tmp_path)] == ["here"]
    assert read_attempts(tmp_path / "nothing") == ()


def test_a_record_that_cannot_be_written_never_fails_the_stage(tmp_path):
    blocked = tmp_path / "work"
    blocked.mkdir()
    (blocked / ATTEMPTS_DIR).write_text("a file where the folder would be")
    with recorded(blocked, "here"):
        value = 42
    assert value == 42 and read_attempts(blocked) == ()


def test_docstring_examples():
    assert_examples_pass("tokstudy.study.attempts")
