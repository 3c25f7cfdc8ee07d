"""The baseline of ``bench_pretrain.py``: ``AlbertForPreTraining`` trained as users run it (batches padded
to ``max_seq_length``, full-vocabulary logits at every position, Hugging Face's ``gelu_new``,
``torch.optim.AdamW``, bf16 autocast on CUDA)."""

from __future__ import annotations


def padded(batch: dict, max_seq: int) -> dict:
    """The baseline's batch: padded to ``max_seq_length``, dense MLM labels."""
    import torch

    from pretrain.model import hf_labels

    b = {k: torch.from_numpy(v) for k, v in batch.items()}
    pad = max_seq - b["input_ids"].shape[1]
    out = {k: torch.nn.functional.pad(b[k], (0, pad)) for k in ("input_ids", "attention_mask", "token_type_ids")}
    out["labels"] = hf_labels(b["mlm_positions"], b["mlm_labels"], max_seq)
    out["sentence_order_label"] = b["sentence_order_label"]
    return out


def baseline_stepper(model_cfg, store, batch: int, device: str):
    """``step(i) -> real tokens`` of plain Hugging Face training (padded batches, full-vocabulary head, AdamW)."""
    import torch

    from pretrain.model import build_model
    from pretrain.sampler import GlobalBatchOrder

    model = build_model(model_cfg, vocab_size=store.vocab_size, seed=0, fused_gelu=False).to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"fused": True} if device == "cuda" else {}))
    order = GlobalBatchOrder(len(store), batch, seed=0)

    def step(i: int) -> int:
        raw = store.get_batch(order.global_indices(i))
        b = {k: v.to(device) for k, v in padded(raw, store.max_seq_length).items()}
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=device == "cuda"):
            loss = model(**b).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return int(raw["attention_mask"].sum())

    return step
