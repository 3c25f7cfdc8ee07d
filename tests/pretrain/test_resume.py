"""Resume is exact: interrupted after k steps and resumed == uninterrupted.

Tolerance: rtol 1e-6 / atol 1e-7 on every weight. On one CPU process the runs are in fact
bit-identical (same data order, same RNG streams, same optimizer and scheduler states); the
tolerance only leaves room for kernels that are not bitwise deterministic on other machines.
Dropout is switched on so that a missing RNG restore would show.
"""

from __future__ import annotations

import json

import pytest
import torch

from pretrain.config import ModelConfig, TrainConfig
from pretrain.logging_ import read_metrics
from pretrain.train import train
from tests.pretrain.helpers import assert_same_weights, final_weights

MODEL = ModelConfig(dropout=0.1, attention_dropout=0.1)
CFG = TrainConfig(
    batch_size=16, micro_batch_size=8, lr=1e-3, warmup_steps=5, total_steps=30, checkpoint_every=10, log_every=5
)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, store_dir, tokenizer_dir):
    out = tmp_path_factory.mktemp("full") / "run"
    train(MODEL, CFG, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False)
    return out


def test_interrupted_and_resumed_equals_uninterrupted(uninterrupted, tmp_path, store_dir, tokenizer_dir):
    out = tmp_path / "run"
    first = train(MODEL, CFG, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False, stop_at_step=13)
    assert first.step == 13 and first.final_model_dir is None
    second = train(MODEL, CFG, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False, resume=True)
    assert second.resumed_from == 13 and second.step == 30
    assert_same_weights(final_weights(out), final_weights(uninterrupted), rtol=1e-6, atol=1e-7)
    # The log reads as one run: the same steps and (to float precision) the same losses.
    a, b = read_metrics(out), read_metrics(uninterrupted)
    assert [r["step"] for r in a] == [r["step"] for r in b]
    torch.testing.assert_close(
        torch.tensor([r["loss"] for r in a]), torch.tensor([r["loss"] for r in b]), rtol=1e-6, atol=1e-7
    )


def test_resume_after_the_end_is_a_no_op(uninterrupted, store_dir, tokenizer_dir):
    before = final_weights(uninterrupted)
    result = train(
        MODEL, CFG, data=store_dir, tokenizer=tokenizer_dir, output=uninterrupted, progress=False, resume=True
    )
    assert result.resumed_from == 30
    assert_same_weights(final_weights(uninterrupted), before, rtol=0, atol=0)


def test_resume_with_another_model_is_refused(uninterrupted, store_dir, tokenizer_dir):
    with pytest.raises(ValueError, match="model config"):
        train(
            ModelConfig(hidden_size=32),
            CFG,
            data=store_dir,
            tokenizer=tokenizer_dir,
            output=uninterrupted,
            progress=False,
            resume=True,
        )


def test_checkpoint_describes_itself(uninterrupted):
    state = json.loads((uninterrupted / "checkpoints" / "step_00000030" / "trainer_state.json").read_text())
    assert state["step"] == 30 and state["model_config"] == MODEL.to_dict()
    assert state["train_config"]["batch_size"] == 16 and state["tokenizer"]["vocab_size"] == 600
    assert state["optimizer"] == "adamw" and state["world_size"] == 1 and len(state["tokenizer"]["sha256"]) == 64
