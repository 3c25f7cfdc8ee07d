"""Data parallelism: 2 processes (gloo, launched by torchrun) with the same global batch reach the
parameters of 1 process.

Each process reads its half of every global batch (see pretrain.sampler) and the loss is
normalised by the global counts (see pretrain.engine), so the two runs take the same steps up
to floating-point summation order. Tolerance: rtol 1e-4 / atol 1e-5 per weight after 10 AdamW
steps (measured: largest absolute difference 2.8e-7; Adam's update g / sqrt(v) can amplify
rounding in near-zero gradients, hence the margin).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pretrain.config import ModelConfig, TrainConfig
from pretrain.train import train
from tests.conftest import PROJECT_ROOT
from tests.pretrain.helpers import assert_same_weights, final_weights, free_port, subprocess_env, tiny_train_args

CFG = TrainConfig(batch_size=16, lr=1e-3, warmup_steps=2, total_steps=10, checkpoint_every=5, log_every=5)


def _torchrun(nproc: int, cfg: TrainConfig, tmp_path, store_dir, tokenizer_dir, out) -> subprocess.CompletedProcess:
    args = tiny_train_args(cfg, tmp_path / f"train_{out.name}.yaml", store_dir, tokenizer_dir, out)
    launcher = ["--nproc_per_node", str(nproc), "--master_addr", "127.0.0.1", "--master_port", str(free_port())]
    cmd = [sys.executable, "-m", "torch.distributed.run", *launcher, "-m", "pretrain", "train", *args]
    return subprocess.run(cmd, env=subprocess_env(), cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_two_processes_accumulating_gradients_match_one(tmp_path, store_dir, tokenizer_dir):
    """Each process takes micro-batches of 4, two a step. Two processes without accumulation (micro-batches of 8)
    are run by tests/pretrain/test_multinode.py (two torchrun agents) and test_compile.py (compiled)."""
    single = tmp_path / "one"
    train(ModelConfig(), CFG, data=store_dir, tokenizer=tokenizer_dir, output=single, progress=False)
    double = tmp_path / "two"
    proc = _torchrun(2, CFG.replace(micro_batch_size=4), tmp_path, store_dir, tokenizer_dir, double)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert_same_weights(final_weights(double), final_weights(single), rtol=1e-4, atol=1e-5)
    state = (double / "checkpoints" / "step_00000010" / "trainer_state.json").read_text()
    assert '"world_size": 2' in state
    # Both ranks' RNG states are in the checkpoint.
    assert sorted(p.name for p in (double / "checkpoints" / "step_00000010" / "rng").iterdir()) == [
        "rank_0.pt",
        "rank_1.pt",
    ]
