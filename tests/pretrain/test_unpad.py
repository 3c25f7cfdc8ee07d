"""The unpadded encoder (``pretrain.unpad``, ``TrainConfig.unpad``) against Hugging Face's padded forward.

The reference is ``AlbertModel`` itself: at every real position the hidden states, the pooled output,
the loss and every gradient are Hugging Face's, for each cross-layer sharing mode, on batches of the
store ``pretrain prepare`` makes (which has short examples, hence padding). Training with and without
unpadding gives the same losses and weights.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pretrain.config import ModelConfig, TrainConfig
from pretrain.model import AlbertPretrainingModule, build_model
from pretrain.unpad import UNPAD_KEYS, has_padding, unpad_layout, unpadded_albert


def _padded_batch(store, n=16):
    """The first ``n``-example batch of the store that has padding (as a dict of tensors) and its unpad layout."""
    for start in range(0, len(store) - n, n):
        b = store.get_batch(np.arange(start, start + n))
        if has_padding(b["attention_mask"]) and b["attention_mask"].mean() < 0.97:
            tensors = {k: torch.from_numpy(v) for k, v in b.items()}
            return tensors, {k: torch.from_numpy(v) for k, v in unpad_layout(b["attention_mask"]).items()}
    pytest.fail("the test store has no batch with padding")


def test_layout_lists_the_real_tokens_and_inverts():
    mask = np.array([[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]])
    layout = unpad_layout(mask)
    rows, slot = layout["unpad_rows"], layout["unpad_slot"]
    assert rows.tolist() == [0, 1, 2, 4, 8, 9, 10, 11]
    assert layout["unpad_cu_seqlens"].tolist() == [0, 3, 4, 8] and layout["unpad_cu_seqlens"].dtype == np.int32
    assert (slot[rows] == np.arange(len(rows))).all()
    assert (slot[mask.reshape(-1) == 0] == 0).all()
    assert has_padding(mask) and not has_padding(np.ones((2, 3)))


@pytest.mark.parametrize("sharing,groups", [("all", 1), ("groups", 2), ("none", 1)])
def test_hidden_states_equal_huggingface_at_real_positions(store, sharing, groups):
    model = build_model(
        ModelConfig(num_layers=4, sharing=sharing, num_groups=groups), vocab_size=store.vocab_size, seed=3
    )
    model.eval()
    batch, layout = _padded_batch(store)
    with torch.no_grad():
        ref = model.albert(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            token_type_ids=batch["token_type_ids"],
        )
        hidden, pooled = unpadded_albert(
            model.albert,
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            layout["unpad_rows"],
            layout["unpad_slot"],
        )
    real = ref.last_hidden_state.flatten(0, 1)[batch["attention_mask"].reshape(-1).bool()]
    assert hidden.shape == real.shape and len(hidden) < batch["input_ids"].numel()
    torch.testing.assert_close(hidden, real, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(pooled, ref.pooler_output, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sharing,groups", [("all", 1), ("groups", 2)])
def test_loss_and_gradients_equal_the_padded_forward(store, sharing, groups):
    model = build_model(
        ModelConfig(num_layers=4, sharing=sharing, num_groups=groups), vocab_size=store.vocab_size, seed=4
    )
    module = AlbertPretrainingModule(model)
    batch, layout = _padded_batch(store)
    padded = module(**batch)
    padded["loss"].backward()
    reference = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    unpadded = module(**batch, **layout)
    unpadded["loss"].backward()
    torch.testing.assert_close(unpadded["loss"], padded["loss"], rtol=1e-5, atol=1e-6)
    for key in ("mlm_correct", "mlm_count", "sop_correct"):
        assert float(unpadded[key]) == float(padded[key]), key
    for name, p in model.named_parameters():
        torch.testing.assert_close(p.grad, reference[name], rtol=1e-4, atol=1e-6, msg=f"gradient of {name}")


def test_bf16_autocast_unpadded_is_close_to_padded(store):
    """The autocast path (bf16 on CUDA) keeps its dtypes through the scatter/gather: same loss within bf16 rounding."""
    model = build_model(ModelConfig(), vocab_size=store.vocab_size, seed=5)
    module = AlbertPretrainingModule(model, autocast_dtype=torch.bfloat16)
    batch, layout = _padded_batch(store, n=8)
    with torch.no_grad():
        padded, unpadded = module(**batch)["loss"], module(**batch, **layout)["loss"]
    assert unpadded.dtype == torch.float32
    torch.testing.assert_close(unpadded, padded, rtol=2e-2, atol=2e-2)


def test_training_with_and_without_unpadding_gives_the_same_run(tmp_path, store_dir, tokenizer_dir):
    from pretrain.logging_ import read_metrics
    from pretrain.train import train
    from tests.pretrain.helpers import assert_same_weights, final_weights

    cfg = TrainConfig(batch_size=16, lr=1e-3, warmup_steps=2, total_steps=6, checkpoint_every=6, log_every=1)
    runs = {}
    for unpad in (False, True):
        out = tmp_path / f"unpad-{unpad}"
        train(
            ModelConfig(), cfg.replace(unpad=unpad), data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False
        )
        runs[unpad] = out
    padded, unpadded = (read_metrics(runs[u]) for u in (False, True))
    assert [r["step"] for r in padded] == [r["step"] for r in unpadded]
    for a, b in zip(padded, unpadded):
        for key in ("loss", "mlm_loss", "sop_loss", "mlm_accuracy"):
            assert b[key] == pytest.approx(a[key], rel=1e-5), (a["step"], key)
    assert_same_weights(final_weights(runs[True]), final_weights(runs[False]), rtol=1e-4, atol=1e-6)


def test_the_engine_unpads_only_batches_with_padding(store):
    from pretrain.engine import PretrainEngine

    engine = PretrainEngine(
        AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)),
        TrainConfig(batch_size=4, total_steps=10),
    )
    seen = []
    forward = engine.engine.forward
    engine.engine.forward = lambda **kw: seen.append(set(kw)) or forward(**kw)
    lengths = np.asarray(store.lengths)
    full = np.flatnonzero(lengths == lengths.max())[:4]
    mixed = np.concatenate([full[:3], np.flatnonzero(lengths < lengths.max())[:1]])
    engine.step([store.get_batch(full)])
    engine.step([store.get_batch(mixed)])
    assert not seen[0] & set(UNPAD_KEYS)
    assert set(UNPAD_KEYS) <= seen[1]
    assert engine.module.varlen_attention is False  # CPU: attention re-pads


def reference_varlen_attn(query, key, value, cu_seq_q, cu_seq_k, max_q, max_k):
    """Variable-length attention written out: SDPA over each example's rows ``[cu[i], cu[i+1])`` alone."""
    assert cu_seq_q.dtype == torch.int32 and torch.equal(cu_seq_q, cu_seq_k) and max_q == max_k
    assert query.dim() == 3 and int(cu_seq_q[-1]) == len(query)
    assert max_q == int((cu_seq_q[1:] - cu_seq_q[:-1]).max())
    out = []
    for a, b in zip(cu_seq_q[:-1].tolist(), cu_seq_q[1:].tolist()):
        q, k, v = (t[a:b].transpose(0, 1)[None] for t in (query, key, value))
        out.append(torch.nn.functional.scaled_dot_product_attention(q, k, v)[0].transpose(0, 1))
    reference_varlen_attn.calls += 1
    return torch.cat(out)


def test_the_variable_length_attention_path_equals_huggingface(store, monkeypatch):
    """The FlashAttention varlen path (CUDA only) with the kernel replaced by a written-out reference:
    Q/K/V layout, ``cu_seqlens`` and the output's reshape give Hugging Face's hidden states (bf16 autocast,
    as on the GPU, so within bf16 rounding)."""
    import pretrain.unpad

    monkeypatch.setattr(pretrain.unpad, "varlen_attn", reference_varlen_attn)
    reference_varlen_attn.calls = 0
    model = build_model(ModelConfig(num_layers=3), vocab_size=store.vocab_size, seed=6).eval()
    batch, layout = _padded_batch(store, n=8)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        ref = model.albert(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], token_type_ids=batch["token_type_ids"]
        )
        hidden, pooled = unpadded_albert(
            model.albert,
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            *(layout[k] for k in UNPAD_KEYS),
        )
    assert reference_varlen_attn.calls == 3
    real = ref.last_hidden_state.flatten(0, 1)[batch["attention_mask"].reshape(-1).bool()]
    # Measured: at most one bf16 step (0.0156 at magnitudes 2-4) from Hugging Face's; a kernel that shifted
    # the example boundaries by one token was 0.157 off.
    torch.testing.assert_close(hidden.float(), real.float(), rtol=0.01, atol=0.02)
    torch.testing.assert_close(pooled.float(), ref.pooler_output.float(), rtol=0.01, atol=0.02)
    # Without half precision (or without cu_seqlens) attention re-pads instead.
    with torch.no_grad():
        unpadded_albert(
            model.albert,
            batch["input_ids"],
            batch["token_type_ids"],
            batch["attention_mask"],
            *(layout[k] for k in UNPAD_KEYS),
        )
    assert reference_varlen_attn.calls == 3


def test_the_attention_kernel_switch_sets_and_restores_torchs_choice():
    """``cudnn`` makes varlen_attn's own question (``_should_use_cudnn``, asked forward and backward) answer True;
    ``flash`` puts torch's function back, so nothing else of torch is changed."""
    import torch.nn.attention.varlen as varlen_module

    from pretrain.unpad import select_varlen_kernel

    torchs = varlen_module._should_use_cudnn
    try:
        select_varlen_kernel("cudnn")
        assert varlen_module._should_use_cudnn(0) is True
        select_varlen_kernel("flash")
        assert varlen_module._should_use_cudnn is torchs
    finally:
        varlen_module._should_use_cudnn = torchs
    with pytest.raises(ValueError, match="attention_kernel"):
        select_varlen_kernel("fa3")


def test_an_attention_kernel_that_fails_is_named_when_the_engine_is_built(monkeypatch):
    """What torch 2.11 did on an H200 with ``cudnn`` (its backward raised): the check raises an error that names
    the setting and the way out, and puts FlashAttention back."""
    import torch.nn.attention.varlen as varlen_module

    import pretrain.unpad
    from pretrain.unpad import check_varlen_kernel

    def broken(*args, **kwargs):
        raise RuntimeError("aten::_cudnn_attention_backward() Expected a value of type 'Tensor' for 'attn_bias'")

    torchs = varlen_module._should_use_cudnn
    monkeypatch.setattr(pretrain.unpad, "varlen_attn", broken)
    try:
        with pytest.raises(
            RuntimeError, match="attention_kernel 'cudnn' does not run.*attn_bias.*use attention_kernel: flash"
        ):
            check_varlen_kernel("cudnn", "cpu")
        assert varlen_module._should_use_cudnn is torchs  # FlashAttention put back
    finally:
        varlen_module._should_use_cudnn = torchs


def test_pretrain_train_no_unpad_flag_reaches_the_run(tmp_path, store_dir, tokenizer_dir):
    from pretrain.checkpoint import read_state
    from pretrain.cli import main

    out = tmp_path / "run"
    args = ["train", "--data", str(store_dir), "--tokenizer", str(tokenizer_dir), "--output", str(out)]
    assert main([*args, "--total-steps", "2", "--no-unpad", "--no-progress"]) == 0
    (checkpoint,) = sorted((out / "checkpoints").glob("step_*"))
    assert read_state(checkpoint)["train_config"]["unpad"] is False


def test_doctest():
    import doctest

    import pretrain.unpad

    assert doctest.testmod(pretrain.unpad).failed == 0
