"""``tokstudy study --cluster local:2`` with the real pre-trainer: a Dask worker SIGKILLed during pre-training, and
the study still writes the scores of an uninterrupted ``--jobs 1`` run, with the killed attempt in that
pre-training's cost (real data; skipped without it).

Both runs are separate ``tokstudy study`` processes with the same compute threads (the cluster's workers get
cores / 2, and so does the ``--jobs 1`` run here), so that their scores can be compared exactly. The cluster run
starts from the ``--jobs 1`` run's tokenizers (the same configuration: it reuses them), so that the test's time
goes to the training runs, where the kill happens.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import corpus_path
from tests.study.conftest import assert_retried_cost, killable_config

pytest.importorskip("distributed")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DIST_VARS = {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"}


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "cluster-killed.yaml"
    path.write_text(yaml.safe_dump(killable_config("cluster-killed")))
    return path


def _env() -> dict[str, str]:
    threads = str(max(1, (os.cpu_count() or 1) // 2))
    env = {k: v for k, v in os.environ.items() if k not in DIST_VARS}
    return env | {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}


def _workers(pid: int) -> list[int]:
    """The Dask worker processes of the study ``pid`` (its nannies run in it and spawn them)."""
    children = [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    return [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _copy_tokenizers(done: Path, out: Path) -> None:
    """The finished run's tokenizers and their stage record, so that the cluster run spends its time on the
    training runs, where the kill happens (the same configuration: it reuses them)."""
    out.mkdir()
    shutil.copytree(done / "tokenizers", out / "tokenizers")
    (out / ".stages").mkdir()
    shutil.copy2(done / ".stages" / "tokenizers.json", out / ".stages" / "tokenizers.json")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through /proc (Linux)")
def test_a_worker_killed_during_pretraining_changes_no_score(tmp_path):
    for name in ("raw_text", "raw_text_large", "conll2003"):
        corpus_path(name)
    config = _config(tmp_path)
    study = [sys.executable, "-m", "tokstudy", "study", str(config), "-q", "--output"]
    serial = subprocess.run([*study, str(tmp_path / "one"), "--jobs", "1"], cwd=ROOT, env=_env(), capture_output=True)
    assert serial.returncode == 0, serial.stderr[-3000:]
    out = tmp_path / "dask"
    _copy_tokenizers(tmp_path / "one", out)
    proc = subprocess.Popen(
        [*study, str(out), "--cluster", "local:2"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 600
        while not list(out.glob("pretrain/*/run/checkpoints/step_*")):
            assert proc.poll() is None and time.time() < deadline, "no pre-training checkpoint appeared"
            time.sleep(0.05)  # the 40 steps end soon after the first checkpoint: kill while both workers train
        workers = _workers(proc.pid)
        assert len(workers) == 2, workers  # both are pre-training: 2 vocabularies, 2 workers
        os.kill(workers[0], signal.SIGKILL)
        killed_at = time.time()
        before = {p: p.stat().st_ino for p in out.glob("pretrain/*/run/checkpoints/step_*")}
        stdout, stderr = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, stderr[-3000:]
    assert stdout.count("dask dashboard:") == 1
    assert "[cached] tokenizers" in stdout
    # the killed run resumed from its checkpoint: no checkpoint written before the kill was written again (a run
    # started over would replace it, checkpoints being written to a temporary folder and renamed)
    assert before and {p: p.stat().st_ino for p in before} == before
    assert len(list(out.glob("pretrain/*/run/final_model/config.json"))) == 2
    for table in ("scores.json", "table4.json"):
        assert (out / "tables" / table).read_text() == (tmp_path / "one" / "tables" / table).read_text(), table
    # the killed worker's attempt is in that pre-training's cost, and the report says it took two attempts
    name = assert_retried_cost(out, killed_at=killed_at)
    lost = json.loads((out / ".stages" / f"pretrain__{name}.json").read_text())["attempts"][0]
    assert lost["where"].startswith("Dask worker tcp://127.0.0.1:")
