"""Faults: a non-finite loss stops the run with the last checkpoint intact; corrupt or partial checkpoints are
detected and skipped; a run killed with SIGKILL resumes from its last checkpoint to the same result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings

import pytest
import torch

from pretrain.checkpoint import CheckpointManager, CorruptCheckpointError, verify
from pretrain.config import ModelConfig, TrainConfig
from pretrain.engine import NonFiniteLossError
from pretrain.model import AlbertPretrainingModule
from pretrain.train import train
from tests.conftest import PROJECT_ROOT
from tests.pretrain.helpers import assert_same_weights, final_weights, subprocess_env, tiny_train_args

CFG = TrainConfig(batch_size=16, lr=1e-3, warmup_steps=2, total_steps=20, checkpoint_every=5, keep_last=3, log_every=5)


def test_nan_loss_stops_with_last_checkpoint_intact(tmp_path, store_dir, tokenizer_dir, monkeypatch):
    out = tmp_path / "run"
    calls = {"n": 0}
    forward = AlbertPretrainingModule.forward

    def poisoned(self, *args, **kwargs):
        result = forward(self, *args, **kwargs)
        calls["n"] += 1
        if calls["n"] == 8:  # the 8th step (one micro-batch per step)
            result["loss"] = result["loss"] * float("nan")
        return result

    monkeypatch.setattr(AlbertPretrainingModule, "forward", poisoned)
    with pytest.raises(NonFiniteLossError, match="step 8.*last checkpoint is intact"):
        train(ModelConfig(), CFG, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False)
    mgr = CheckpointManager(out / "checkpoints", keep_last=3)
    assert [s for s, _ in mgr.step_dirs()] == [5]
    path, state = mgr.latest_valid()
    assert state["step"] == 5
    weights = torch.load(path / "ds" / "mp_rank_00_model_states.pt", weights_only=False)["module"]
    assert all(torch.isfinite(w).all() for w in weights.values() if w.is_floating_point())
    monkeypatch.setattr(AlbertPretrainingModule, "forward", forward)
    result = train(ModelConfig(), CFG, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False, resume=True)
    assert result.resumed_from == 5 and result.step == 20


@pytest.fixture(scope="module")
def finished(tmp_path_factory, store_dir, tokenizer_dir):
    out = tmp_path_factory.mktemp("finished") / "run"
    train(ModelConfig(), CFG, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False)
    return out


def _copy_run(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "no-manifest"])
def test_corrupt_checkpoint_is_detected_and_skipped(damage, finished, tmp_path):
    run = _copy_run(finished, tmp_path / "run")
    newest = run / "checkpoints" / "step_00000020"
    target = newest / "ds" / "mp_rank_00_model_states.pt"
    if damage == "flip":
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    elif damage == "truncate":
        target.write_bytes(target.read_bytes()[:1000])
    elif damage == "delete":
        target.unlink()
    else:
        (newest / "manifest.json").unlink()
    with pytest.raises(CorruptCheckpointError):
        verify(newest)
    with pytest.warns(RuntimeWarning, match="skipping checkpoint .*step_00000020"):
        path, state = CheckpointManager(run / "checkpoints", keep_last=3).latest_valid()
    assert path.name == "step_00000015" and state["step"] == 15


def test_resume_falls_back_past_a_corrupt_checkpoint(finished, tmp_path, store_dir, tokenizer_dir):
    run = _copy_run(finished, tmp_path / "run")
    target = run / "checkpoints" / "step_00000020" / "rng" / "rank_0.pt"
    target.write_bytes(b"garbage")
    with pytest.warns(RuntimeWarning, match="sha256|bytes"):
        result = train(
            ModelConfig(), CFG, data=store_dir, tokenizer=tokenizer_dir, output=run, progress=False, resume=True
        )
    assert result.resumed_from == 15 and result.step == 20
    assert_same_weights(final_weights(run), final_weights(finished), rtol=1e-6, atol=1e-7)


def test_a_failed_write_leaves_no_checkpoint(tmp_path):
    mgr = CheckpointManager(tmp_path / "ckpt", keep_last=2)

    def write_ok(tmp):
        (tmp / "weights.bin").write_bytes(b"1" * 100)

    mgr.save(1, write=write_ok, state={})

    def write_dies(tmp):
        (tmp / "weights.bin").write_bytes(b"2" * 10)
        raise KeyboardInterrupt  # as if killed half-way

    with pytest.raises(KeyboardInterrupt):
        mgr.save(2, write=write_dies, state={})
    assert [s for s, _ in mgr.step_dirs()] == [1]  # the temporary directory is not a checkpoint
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mgr.latest_valid()[1]["step"] == 1
    (tmp_path / "ckpt" / ".step_00000001.old-7-ab").mkdir()  # as a kill during a removal leaves it
    mgr.save(3, write=write_ok, state={})
    assert not list((tmp_path / "ckpt").glob(".tmp-*"))  # leftovers are cleaned by the next save
    mgr.save(4, write=write_ok, state={})
    assert [s for s, _ in mgr.step_dirs()] == [4, 3]  # keep_last = 2
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == ["latest", "step_00000003", "step_00000004"]


# `pretrain train` with every optimiser step followed by a pause (weights unchanged): the tiny model otherwise
# finishes its 20 steps within the test's 0.3 s between "first checkpoint written" and the kill on a fast or
# lightly loaded machine, and the run would be killed after training instead of in the middle of it.
_SLOW_STEPS_CHILD = """
import sys, time
from pretrain.engine import PretrainEngine
_step = PretrainEngine.step
def _slow_step(self, *args, **kwargs):
    stats = _step(self, *args, **kwargs)
    time.sleep(0.25)
    return stats
PretrainEngine.step = _slow_step
from pretrain.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_matches_uninterrupted(finished, tmp_path, store_dir, tokenizer_dir):
    out = tmp_path / "killed"
    args = tiny_train_args(CFG.replace(checkpoint_every=3), tmp_path / "train.yaml", store_dir, tokenizer_dir, out)
    cmd = [sys.executable, "-c", _SLOW_STEPS_CHILD, "train", *args]
    proc = subprocess.Popen(
        cmd, env=subprocess_env(), cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    ckpts = out / "checkpoints"
    deadline = time.monotonic() + 240
    # Kill once the first checkpoint is complete, while training (and possibly the next write) goes on.
    while not (ckpts / "latest").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read()[-2000:]}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    found = CheckpointManager(ckpts, keep_last=3).latest_valid()
    assert found is not None and found[1]["step"] < 20
    result = train(
        ModelConfig(),
        CFG.replace(checkpoint_every=3),
        data=store_dir,
        tokenizer=tokenizer_dir,
        output=out,
        progress=False,
        resume=True,
    )
    assert result.resumed_from == found[1]["step"] and result.step == 20
    assert_same_weights(final_weights(out), final_weights(finished), rtol=1e-6, atol=1e-7)
