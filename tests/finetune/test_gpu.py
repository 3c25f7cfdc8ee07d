"""The same run on CUDA (skipped without a GPU)."""

from __future__ import annotations

import pytest

from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.run import finetune
from tests.conftest import corpus_path
from tests.finetune.conftest import QUICK


@pytest.mark.gpu
def test_finetune_on_cuda(tiny_model, tmp_path):
    corpus_path("snips")
    result = finetune(
        FinetuneConfig(model=str(tiny_model), task="ner", dataset="snips", device="cuda", save_models=False, **QUICK),
        tmp_path,
    )
    record = result.seeds[0]
    assert record["train"]["device"].startswith("cuda") and record["test"]["f1"] > 0.1


@pytest.mark.gpu
def test_the_step_loop_never_waits_for_the_device_between_evaluations():
    """CUDA's sync debug mode over whole fine-tuning runs of 1, 2 and 3 epochs (10 steps and one evaluation each):
    the fine-tuner's own synchronising calls grow by the same count per epoch, and that count is what an
    evaluation needs (the loss read, the best weights copied to the host tensor by tensor), below the epoch's
    10 steps: none is made per step. The Hugging Face model's own (its attention-mask checks) are not counted."""
    import warnings

    import torch

    from pretrain.finetune.trainer import train
    from tests.finetune.test_host_reads import TinyTagger, _config, _items

    def our_syncs(epochs: int) -> int:
        model, evaluations = TinyTagger().cuda(), []

        def evaluate(m) -> float:
            evaluations.append(1)
            return float(len(evaluations))  # improving: the best weights are copied every time

        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            torch.cuda.set_sync_debug_mode("warn")
            try:
                result = train(model, _items(), evaluate=evaluate, config=_config(epochs=epochs), seed=3, pad_id=0,
                               unk_id=1, keep_ids=(2, 3, 0), device="cuda")  # fmt: skip
            finally:
                torch.cuda.set_sync_debug_mode("default")
        assert result.steps == 10 * epochs and len(evaluations) == epochs
        sites = [f"{w.filename}" for w in seen if "called a synchronizing CUDA operation" in str(w.message)]
        return sum("pretrain/finetune/" in s.replace("\\", "/") for s in sites)

    one, two, three = our_syncs(1), our_syncs(2), our_syncs(3)
    per_epoch = two - one
    assert three - two == per_epoch
    assert per_epoch <= 1 + len(TinyTagger().state_dict()) < 10
