"""A study killed with SIGKILL during pre-training completes when re-run, and the resumed pre-training's cost counts
the killed attempt (real data; the tiny configuration). The study that is killed is a ``tokstudy study`` process
of its own; the re-run is :func:`~tokstudy.study.pipeline.run_study` in the test's process.

Apart from test_pipeline.py's shared run, so that the two pytest workers can take both files side by side.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from pretrain.study_backend import PretrainBackend
from tests.conftest import corpus_path
from tests.study.conftest import assert_retried_cost, killable_config
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study

pytestmark = pytest.mark.slow
# an in-process study run earlier in this pytest process set DeepSpeed's single-process rendezvous variables, and
# its process group still holds that port: a fresh process must pick its own
DIST_VARS = {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"}


def test_killed_during_pretraining_completes_when_rerun(tmp_path):
    for name in ("raw_text", "raw_text_large", "conll2003"):
        corpus_path(name)
    out = tmp_path / "killed"
    longer = ["--output", str(out), "-q"]
    env = {k: v for k, v in os.environ.items() if k not in DIST_VARS} | {"OMP_NUM_THREADS": "1"}
    cfg_file = tmp_path / "longer.yaml"
    cfg_file.write_text(yaml.safe_dump(killable_config("killed")))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokstudy", "study", str(cfg_file), *longer],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 300
        while time.time() < deadline and not list(out.glob("pretrain/*/run/checkpoints/step_*")):
            if proc.poll() is not None:
                break
            time.sleep(0.05)  # once set up, the two short pre-trainings end within seconds: kill before they do
        assert proc.poll() is None, f"the run ended (rc {proc.returncode}) before a pre-training checkpoint appeared"
        os.killpg(proc.pid, signal.SIGKILL)
        killed_at = time.time()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # re-run here, as `tokstudy study` runs it (its process would only add the start of torch and the pre-trainer)
    lines = []
    config = load_study_config(cfg_file, output_dir=str(out))
    result = run_study(config, backend=PretrainBackend(), log=lines.append, progress=False)
    assert result.report_markdown == out / "report.md" and result.report_markdown.is_file()
    assert any(line.startswith("[resume] pretrain/") for line in lines), lines
    assert "[cached] tokenizers" in lines
    # the killed attempt ran in the study's own process (one job): its time is in the resumed pre-training's cost
    name = assert_retried_cost(out, killed_at=killed_at)
    assert f"[resume] pretrain/{name}" in lines
