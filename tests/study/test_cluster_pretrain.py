"""``tokstudy study`` on a ``local:2`` Dask cluster with the real pre-trainer: a Dask worker SIGKILLed during
pre-training, and the study still writes the scores of an uninterrupted ``--jobs 1`` run, with the killed attempt in
that pre-training's cost (real data; skipped without it).

The ``--jobs 1`` run is a ``tokstudy study`` process with the compute threads of a cluster worker (cores / 2), so
that their scores can be compared exactly. The cluster run is :func:`~tokstudy.study.pipeline.run_study` in the
test's process, as the command runs it (the training runs are on the workers, which set their own threads; a
process of its own would only start torch and the pre-trainer again). It starts from the ``--jobs 1`` run's
tokenizers (the same configuration: it reuses them), so that the test's time goes to the training runs, where the
kill happens.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from pretrain.study_backend import PretrainBackend
from tests.conftest import corpus_path
from tests.study.conftest import assert_retried_cost, killable_config
from tokstudy.study.attempts import AttemptEnd, read_attempts
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# an in-process study run earlier in this pytest process set DeepSpeed's single-process rendezvous variables, and
# its process group still holds that port: the study's processes (the reference, the cluster's workers) pick their own
DIST_VARS = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")


def _env(threads: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DIST_VARS}
    return env | {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}


def _copy_tokenizers(done: Path, out: Path) -> None:
    """The finished run's tokenizers and their stage record, so that the cluster run spends its time on the
    training runs, where the kill happens (the same configuration: it reuses them)."""
    out.mkdir()
    shutil.copytree(done / "tokenizers", out / "tokenizers")
    (out / ".stages").mkdir()
    shutil.copy2(done / ".stages" / "tokenizers.json", out / ".stages" / "tokenizers.json")


def _worker_at(where: str) -> int:
    """The pid of this process's child that listens at the Dask worker address ``where`` names (the workers are
    spawned by their nannies, which run in the study's process)."""
    port = int(re.search(r"tcp://127\.0\.0\.1:(\d+)", where).group(1))
    for child in psutil.Process().children(recursive=True):
        try:
            if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in child.net_connections("tcp")):
                return child.pid
        except psutil.Error:  # a process that ended meanwhile
            continue
    raise AssertionError(f"no child process listens at {where}")


def _kill_a_pretraining_worker(out: Path, deadline: float) -> dict:
    """Once a pre-training has written its first checkpoint, SIGKILL the worker that runs the first pre-training
    (both are running, each on its own worker); when, and the checkpoints written before."""
    while time.time() < deadline:
        if list(out.glob("pretrain/*/run/checkpoints/step_*")):
            running = {
                work.name: [a.where for a in read_attempts(work) if a.end is AttemptEnd.LOST]
                for work in sorted(out.glob("pretrain/*"))
            }
            where = [w for ws in running.values() for w in ws]
            assert len(running) == 2 and len(set(where)) == 2, running  # 2 vocabularies, 2 workers, both training
            os.kill(_worker_at(where[0]), signal.SIGKILL)
            killed_at = time.time()
            before = {p: p.stat().st_ino for p in out.glob("pretrain/*/run/checkpoints/step_*")}
            return {"name": next(iter(running)), "at": killed_at, "before": before}
        time.sleep(0.05)  # the 40 steps end soon after the first checkpoint: kill while both workers train
    raise AssertionError("no pre-training checkpoint appeared")


@pytest.mark.timeout(900)
def test_a_worker_killed_during_pretraining_changes_no_score(tmp_path, monkeypatch):
    for name in ("raw_text", "raw_text_large", "conll2003"):
        corpus_path(name)
    config = tmp_path / "cluster-killed.yaml"
    config.write_text(yaml.safe_dump(killable_config("cluster-killed")))
    threads = str(max(1, (os.cpu_count() or 1) // 2))  # what each of the cluster's 2 workers gets
    study = [sys.executable, "-m", "tokstudy", "study", str(config), "-q", "--output", str(tmp_path / "one")]
    serial = subprocess.run([*study, "--jobs", "1"], cwd=ROOT, env=_env(threads), capture_output=True)
    assert serial.returncode == 0, serial.stderr[-3000:]
    out = tmp_path / "dask"
    _copy_tokenizers(tmp_path / "one", out)
    for name in DIST_VARS:  # the workers inherit this process's environment
        monkeypatch.delenv(name, raising=False)
    killed: list = []

    def kill() -> None:
        try:
            killed.append(_kill_a_pretraining_worker(out, time.time() + 600))
        except BaseException as exc:  # raised again in the test, once the study has ended
            killed.append(exc)

    killer = threading.Thread(target=kill, daemon=True)
    killer.start()
    loaded = load_study_config(config, output_dir=str(out))
    on_cluster = dataclasses.replace(loaded, cluster=dataclasses.replace(loaded.cluster, address="local:2"))
    lines: list[str] = []
    run_study(on_cluster, backend=PretrainBackend(), log=lines.append, progress=False)
    killer.join()
    if isinstance(killed[0], BaseException):
        raise killed[0]
    assert sum(line.startswith("dask dashboard:") for line in lines) == 1
    assert "[cached] tokenizers" in lines
    # the killed run resumed from its checkpoint: no checkpoint written before the kill was written again (a run
    # started over would replace it, checkpoints being written to a temporary folder and renamed)
    before = killed[0]["before"]
    assert before and {p: p.stat().st_ino for p in before} == before
    assert len(list(out.glob("pretrain/*/run/final_model/config.json"))) == 2
    for table in ("scores.json", "table4.json"):
        assert (out / "tables" / table).read_text() == (tmp_path / "one" / "tables" / table).read_text(), table
    # the killed worker's attempt is in that pre-training's cost, and the report says it took two attempts
    name = assert_retried_cost(out, killed_at=killed[0]["at"])
    assert name == killed[0]["name"]
    lost = json.loads((out / ".stages" / f"pretrain__{name}.json").read_text())["attempts"][0]
    assert lost["where"].startswith("Dask worker tcp://127.0.0.1:")
