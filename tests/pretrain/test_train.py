"""A short CPU run of the tiny model on real English text: it learns (loss falls, MLM accuracy beats the baseline)."""

from __future__ import annotations

import numpy as np
import pytest

from pretrain.config import ModelConfig, TrainConfig
from pretrain.logging_ import COLUMNS, read_metrics
from pretrain.train import train
from tests.pretrain.helpers import mlm_accuracy


@pytest.fixture(scope="module")
def short_run(tmp_path_factory, store_dir, tokenizer_dir):
    out = tmp_path_factory.mktemp("run") / "tiny"
    cfg = TrainConfig(
        batch_size=32, lr=5e-3, warmup_steps=10, total_steps=300, checkpoint_every=100, keep_last=2, log_every=10
    )
    result = train(ModelConfig(), cfg, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False)
    return result


def test_loss_falls_and_mlm_beats_most_frequent_piece(short_run, store):
    rows = read_metrics(short_run.output_dir)
    assert [int(r["step"]) for r in rows] == list(range(10, 301, 10))
    first, last = np.mean([r["loss"] for r in rows[:3]]), np.mean([r["loss"] for r in rows[-3:]])
    assert last < first - 0.5, (first, last)

    from transformers import AutoModelForPreTraining

    # Baseline: always predicting the most frequent masked piece of the evaluated examples.
    evaluated = np.arange(512)
    labels = store.get_batch(evaluated)["mlm_labels"]
    counts = np.bincount(labels[labels >= 0])
    baseline, n = counts.max() / counts.sum(), counts.sum()
    model = AutoModelForPreTraining.from_pretrained(short_run.final_model_dir)
    acc = mlm_accuracy(model, store, evaluated)
    # "Above" means beyond sampling noise: 4 binomial standard errors of the baseline rate.
    margin = 4 * np.sqrt(baseline * (1 - baseline) / n)
    assert acc > baseline + margin, (acc, baseline, margin)


def test_run_writes_logs_checkpoints_and_model(short_run):
    out = short_run.output_dir
    assert short_run.step == 300 and short_run.resumed_from is None
    header = (out / "metrics.csv").read_text().splitlines()[0].split(",")
    assert tuple(header) == COLUMNS
    assert any((out / "tensorboard").iterdir())
    steps = sorted(p.name for p in (out / "checkpoints").iterdir() if p.name.startswith("step_"))
    assert steps == ["step_00000200", "step_00000300"]  # keep_last = 2
    assert (out / "checkpoints" / "latest").read_text().strip() == "step_00000300"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "spiece.model"):
        assert (out / "final_model" / name).is_file(), name
    rows = read_metrics(out)
    assert all(r["tokens_per_s"] > 0 and 0 <= r["mlm_accuracy"] <= 1 for r in rows)
    assert rows[-1]["lr"] < rows[0]["lr"]  # linear decay after warm-up


def _one_step(store_dir, tokenizer_dir, output):
    """One step of the tiny model (for the checks made before any training)."""
    config = TrainConfig(batch_size=32, total_steps=1)
    return train(ModelConfig(), config, data=store_dir, tokenizer=tokenizer_dir, output=output, progress=False)


def test_refuses_to_overwrite_a_run_without_resume(short_run, store_dir, tokenizer_dir):
    with pytest.raises(FileExistsError, match="--resume"):
        _one_step(store_dir, tokenizer_dir, short_run.output_dir)


def test_tokenizer_and_store_vocabulary_must_agree(tmp_path, store_dir):
    from pretrain.tokenizer_info import VocabularyMismatchError
    from tests.pretrain.conftest import train_tokenizer

    other = train_tokenizer(tmp_path / "tok500", vocab_size=500, sample_size=1500)
    with pytest.raises(VocabularyMismatchError, match="600.*500|500.*600"):
        _one_step(store_dir, other, tmp_path / "run")
