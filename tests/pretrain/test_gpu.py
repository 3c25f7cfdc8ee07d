"""On a CUDA device (marked ``gpu``, skipped without one): one step of the base preset as ``train_base.yaml`` runs it.

That is ds_gpu_bf16.json (ZeRO 0, fp32 master weights), bf16 autocast, the per-tensor LAMB and
torch.compile, all chosen by ``auto``. Run with ``pytest -m gpu tests/pretrain/test_gpu.py``.
"""

from __future__ import annotations

import math

import pytest
import torch

from pretrain.config import CONFIG_DIR, ModelConfig, TrainConfig

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def test_one_bf16_step_of_the_base_preset(store):
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    cfg = TrainConfig.load(CONFIG_DIR / "train_base.yaml").replace(batch_size=16, total_steps=10, warmup_steps=0)
    model = build_model(ModelConfig.preset("base"), vocab_size=store.vocab_size, seed=0)
    engine = PretrainEngine(AlbertPretrainingModule(model), cfg)
    assert engine.optimizer_name == "lamb" and engine.module.autocast_dtype == torch.bfloat16
    from pretrain.unpad import varlen_supported

    assert engine.module.varlen_attention == varlen_supported(engine.device)
    before = {n: p.detach().clone() for n, p in engine.module.model.named_parameters()}
    stats = [engine.step([store.get_batch(range(16 * i, 16 * (i + 1)))], step=i) for i in range(2)]
    engine.check_finite()
    assert engine.compiled, "torch.compile fell back to eager on the GPU (see the warning)"
    assert all(math.isfinite(s.loss) and s.loss > 0 for s in stats)
    after = dict(engine.module.model.named_parameters())
    assert all(p.dtype == torch.float32 for p in after.values())  # fp32 master weights
    assert any(not torch.equal(before[n], after[n]) for n in before)


def test_a_step_never_waits_for_the_device(store):
    """After the first (compiling) steps, a training step issues no synchronising CUDA call (CUDA's sync debug mode)."""
    import warnings

    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    cfg = TrainConfig.load(CONFIG_DIR / "train_base.yaml").replace(batch_size=16, total_steps=10, warmup_steps=0)
    engine = PretrainEngine(
        AlbertPretrainingModule(build_model(ModelConfig.preset("base"), vocab_size=store.vocab_size, seed=0)), cfg
    )
    batches = [store.get_batch(range(16 * i, 16 * (i + 1))) for i in range(4)]
    for i in range(2):
        engine.step([batches[i]], step=i)
    torch.cuda.synchronize()
    real, calls = torch.cuda.synchronize, []

    def counting(*args, **kwargs):  # sync debug mode cannot see explicit synchronize() calls
        calls.append(1)
        return real(*args, **kwargs)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        torch.cuda.synchronize = counting
        try:
            for i in range(2, 4):
                engine.step([batches[i]], step=i)
        finally:
            torch.cuda.synchronize = real
            torch.cuda.set_sync_debug_mode("default")
    # Only the per-call report, not torch's one-time "sync debug mode is a prototype" notice.
    syncs = [
        f"{w.filename}:{w.lineno}: {w.message}"
        for w in seen
        if "called a synchronizing CUDA operation" in str(w.message)
    ]
    assert not syncs, "\n".join(syncs[:10])
    assert not calls, f"torch.cuda.synchronize() called {len(calls)} times in 2 steps"
    engine.check_finite()


def test_variable_length_flash_attention_equals_the_padded_forward(store):
    """The unpadded encoder with torch's varlen FlashAttention gives Hugging Face's padded loss (bf16 rounding)."""
    import numpy as np

    from pretrain.model import AlbertPretrainingModule, build_model
    from pretrain.unpad import has_padding, unpad_layout, varlen_supported

    if not varlen_supported("cuda"):
        pytest.skip("no variable-length FlashAttention here (needs compute capability >= 8.0, torch >= 2.10)")
    model = build_model(ModelConfig.preset("base"), vocab_size=store.vocab_size, seed=0).cuda().eval()
    module = AlbertPretrainingModule(model, autocast_dtype=torch.bfloat16)
    lengths = np.asarray(store.lengths)
    idx = np.concatenate([np.flatnonzero(lengths == lengths.max())[:12], np.flatnonzero(lengths < lengths.max())[:4]])
    host = store.get_batch(idx)
    assert has_padding(host["attention_mask"])
    batch = {k: torch.from_numpy(v).cuda() for k, v in host.items()}
    layout = {k: torch.from_numpy(v).cuda() for k, v in unpad_layout(host["attention_mask"]).items()}
    with torch.no_grad():
        padded = module(**batch)["loss"]
        module.varlen_attention = True
        varlen = module(**batch, **layout)["loss"]
    torch.testing.assert_close(varlen, padded, rtol=2e-2, atol=2e-2)


def test_cudnn_variable_length_attention_equals_flash_attention():
    """``attention_kernel: cudnn`` (cuDNN's fused attention inside torch's varlen_attn) gives FlashAttention-2's
    output and gradients within bf16 rounding, on examples of different lengths. Torch ships that path turned
    off; where this torch's cuDNN refuses the call, the test says so and skips (``flash`` stays the default)."""
    from pretrain.unpad import select_varlen_kernel, varlen_attn, varlen_supported

    if not varlen_supported("cuda"):
        pytest.skip("no variable-length attention here (needs compute capability >= 8.0, torch >= 2.10)")
    lengths = [512, 300, 512, 77, 512, 511]
    cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32, device="cuda")
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(sum(lengths), 12, 64, device="cuda", generator=gen, dtype=torch.bfloat16) for _ in range(3))
    grad_out = torch.randn(sum(lengths), 12, 64, device="cuda", generator=gen, dtype=torch.bfloat16)

    def run(kernel):
        select_varlen_kernel(kernel)
        leaves = [t.clone().requires_grad_() for t in (q, k, v)]
        out = varlen_attn(*leaves, cu, cu, 512, 512)
        out.backward(grad_out)
        return [out.detach(), *(t.grad for t in leaves)]

    flash = run("flash")
    try:
        cudnn = run("cudnn")
    except RuntimeError as exc:
        pytest.skip(f"cuDNN's varlen attention is unavailable in torch {torch.__version__}: {exc}")
    finally:
        select_varlen_kernel("flash")
    for name, a, b in zip(("output", "dq", "dk", "dv"), cudnn, flash):
        torch.testing.assert_close(a.float(), b.float(), rtol=2e-2, atol=2e-2, msg=lambda m, n=name: f"{n}: {m}")


def test_lamb_is_per_tensor_on_the_device():
    """pretrain.lamb.Lamb's foreach kernels on CUDA equal the float64 reference LAMB (one trust ratio per tensor)."""
    from pretrain.lamb import Lamb
    from tests.pretrain.test_lamb import reference_lamb

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.Tanh(), torch.nn.Linear(128, 32)).cuda()
    with torch.no_grad():
        model[2].bias.zero_()  # a zero tensor: its trust ratio must be 1
    decay, no_decay = [model[0].weight, model[2].weight], [model[0].bias, model[2].bias]
    start = [[p.detach().cpu().clone() for p in decay], [p.detach().cpu().clone() for p in no_decay]]
    opt = Lamb([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=0.05)
    grads = []
    for step in range(3):
        x = torch.randn(256, 64, generator=torch.Generator().manual_seed(step)).cuda()
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        grads.append([[p.grad.detach().cpu().clone() for p in g] for g in (decay, no_decay)])
        opt.step()
    expected = reference_lamb(start, grads, lr=0.05, betas=(0.9, 0.999), eps=1e-6, weight_decays=[0.1, 0.0])
    for got, want in zip(decay + no_decay, expected[0] + expected[1]):
        torch.testing.assert_close(got.detach().cpu().double(), want, rtol=1e-5, atol=1e-6)
    flat = reference_lamb(start, grads, lr=0.05, betas=(0.9, 0.999), eps=1e-6, weight_decays=[0.1, 0.0], flat=True)
    assert max(float((a - b).abs().max()) for a, b in zip(flat[0], expected[0])) > 1e-3  # the test can tell


def test_a_resumed_run_continues_where_it_left_off(tmp_path, store_dir, tokenizer_dir):
    """On the GPU path (ds_gpu_bf16.json, LAMB, bf16 autocast; eager to keep the test short): interrupted at
    step 5 and resumed == uninterrupted. Tolerance: bit for bit is expected (same kernels, same order); the
    assertion allows 1e-6 relative for kernels that are not bitwise deterministic."""
    from pretrain.train import train
    from tests.pretrain.helpers import assert_same_weights, final_weights

    cfg = TrainConfig.load(CONFIG_DIR / "train_base.yaml").replace(
        batch_size=16, total_steps=10, warmup_steps=2, checkpoint_every=5, log_every=5, compile="off", lr=1e-3
    )
    full, split = tmp_path / "full", tmp_path / "split"
    train(ModelConfig(), cfg, data=store_dir, tokenizer=tokenizer_dir, output=full, progress=False)
    first = train(
        ModelConfig(), cfg, data=store_dir, tokenizer=tokenizer_dir, output=split, progress=False, stop_at_step=5
    )
    assert first.step == 5
    second = train(
        ModelConfig(), cfg, data=store_dir, tokenizer=tokenizer_dir, output=split, progress=False, resume=True
    )
    assert second.resumed_from == 5 and second.step == 10
    a, b = final_weights(split), final_weights(full)
    identical = all(torch.equal(a[k], b[k]) for k in a)
    print(f"resumed run bit for bit equal to the uninterrupted one: {identical}")
    assert_same_weights(a, b, rtol=1e-6, atol=1e-7)
