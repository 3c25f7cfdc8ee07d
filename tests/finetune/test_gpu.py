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
