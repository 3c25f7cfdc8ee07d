"""The masked-positions-only loss against Hugging Face's own AlbertForPreTraining loss (an independent reference)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch

from pretrain.config import ModelConfig
from pretrain.model import AlbertPretrainingModule, build_model, hf_labels


def _batch(store, n=8, start=0):
    b = store.get_batch(np.arange(start, start + n))
    return {k: torch.from_numpy(v) for k, v in b.items()}


def test_loss_equals_huggingface_loss(store):
    model = build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)
    model.eval()
    module = AlbertPretrainingModule(model)
    batch = _batch(store)
    ours = module(**batch)
    labels = hf_labels(batch["mlm_positions"], batch["mlm_labels"], batch["input_ids"].shape[1])
    ref = model(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        token_type_ids=batch["token_type_ids"],
        labels=labels,
        sentence_order_label=batch["sentence_order_label"],
    )
    torch.testing.assert_close(ours["loss"], ref.loss, rtol=1e-5, atol=1e-5)
    # The statistics are the masked-token counts and accuracies Hugging Face's logits imply.
    mask = labels != -100
    assert int(ours["mlm_count"]) == int(mask.sum())
    assert int(ours["mlm_correct"]) == int((ref.prediction_logits.argmax(-1)[mask] == labels[mask]).sum())
    assert int(ours["sop_correct"]) == int((ref.sop_logits.argmax(-1) == batch["sentence_order_label"]).sum())


def test_gradients_equal_huggingface_gradients(store):
    model = build_model(ModelConfig(), vocab_size=store.vocab_size, seed=1)
    batch = _batch(store, n=4, start=8)
    AlbertPretrainingModule(model)(**batch)["loss"].backward()
    ours = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    labels = hf_labels(batch["mlm_positions"], batch["mlm_labels"], batch["input_ids"].shape[1])
    model(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        token_type_ids=batch["token_type_ids"],
        labels=labels,
        sentence_order_label=batch["sentence_order_label"],
    ).loss.backward()
    for name, p in model.named_parameters():
        torch.testing.assert_close(ours[name], p.grad, rtol=1e-4, atol=1e-6, msg=f"gradient of {name}")


def test_denominators_split_a_global_mean(store):
    """Two halves with the whole batch's counts as denominators add up to the whole batch's loss."""
    model = build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)
    module = AlbertPretrainingModule(model)
    whole = _batch(store, n=8)
    full = module(**whole)
    halves = [_batch(store, n=4, start=0), _batch(store, n=4, start=4)]
    total = sum(
        module(**h, mlm_denominator=full["mlm_count"], sop_denominator=full["sop_count"])["loss"] for h in halves
    )
    torch.testing.assert_close(total, full["loss"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sharing,groups,expected_blocks", [("all", 1, 1), ("none", 1, 4), ("groups", 2, 2)])
def test_sharing_modes_are_standard_albert(sharing, groups, expected_blocks):
    cfg = ModelConfig(num_layers=4, sharing=sharing, num_groups=groups)
    model = build_model(cfg, vocab_size=50, seed=0)
    assert len(model.albert.encoder.albert_layer_groups) == expected_blocks
    assert model.config.num_hidden_layers == 4 and model.config.inner_group_num == 1
    assert model.config._attn_implementation == "sdpa"
    # Sharing shrinks the parameter count by exactly the unshared blocks.
    block = _n_parameters(model.albert.encoder.albert_layer_groups[0])
    base = _n_parameters(build_model(ModelConfig(num_layers=4), vocab_size=50, seed=0))
    assert _n_parameters(model) == base + (expected_blocks - 1) * block


def _n_parameters(module) -> int:
    return sum(p.numel() for p in module.parameters())  # torch lists a tied weight once


def test_embedding_size_is_independent_of_hidden_size():
    model = build_model(ModelConfig(embedding_size=16, hidden_size=64), vocab_size=50, seed=0)
    assert model.albert.embeddings.word_embeddings.weight.shape == (50, 16)
    assert model.albert.encoder.embedding_hidden_mapping_in.weight.shape == (64, 16)
    # The MLM decoder is tied to the input embeddings.
    assert model.predictions.decoder.weight.data_ptr() == model.albert.embeddings.word_embeddings.weight.data_ptr()


def test_fused_gelu_is_hugging_faces_gelu_new():
    """The swapped activation is the same function (float rounding) and the export keeps ``gelu_new``."""
    from transformers.activations import NewGELUActivation

    from pretrain.config import ModelConfig
    from pretrain.model import TanhGELU, build_model

    x = torch.linspace(-8, 8, 10001, dtype=torch.float64)
    torch.testing.assert_close(TanhGELU()(x), NewGELUActivation()(x), rtol=1e-12, atol=1e-12)
    model = build_model(ModelConfig(), vocab_size=100, seed=0)
    plain = build_model(ModelConfig(), vocab_size=100, seed=0, fused_gelu=False)
    assert not any(isinstance(m, NewGELUActivation) for m in model.modules())
    assert sum(isinstance(m, TanhGELU) for m in model.modules()) == 2  # the shared layer's FFN, the MLM head
    assert model.config.hidden_act == "gelu_new"
    ids = torch.randint(5, 100, (2, 9), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(
            model.eval()(ids).prediction_logits, plain.eval()(ids).prediction_logits, rtol=1e-5, atol=1e-6
        )


def test_without_an_autocast_dtype_a_callers_autocast_is_off_inside(store):
    """The module computes in float32 unless given ``autocast_dtype``, even inside a caller's bf16 autocast; and with
    no autocast anywhere it enters none (a disabled ``torch.autocast`` keeps a compiled graph out of AOTAutograd's
    cache: tests/pretrain/test_compile.py reads the graphs back from it)."""
    model = build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0).eval()
    module, batch = AlbertPretrainingModule(model), _batch(store)
    with torch.no_grad():
        plain = module(**batch)["loss"]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            inside = module(**batch)["loss"]
        module.autocast_dtype = torch.bfloat16
        bf16 = module(**batch)["loss"]
    assert torch.equal(inside, plain)
    assert not torch.equal(bf16, plain)  # the bf16 autocast of autocast_dtype does change the result
    assert isinstance(AlbertPretrainingModule(model)._autocast("cpu"), contextlib.nullcontext)
