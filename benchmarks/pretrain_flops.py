"""Model FLOPs per trained token and device peaks: the model-FLOPs utilisation (MFU) of ``bench_pretrain.py``."""

from __future__ import annotations

#: Dense bf16 peak (TFLOP/s) by device-name fragment, for MFU.
PEAK_BF16_TFLOPS = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L40S": 362.0, "A10": 125.0}


def train_flops_per_token(cfg, vocab: int, seq: int, mask_rate: float, *, masked_only: bool) -> float:
    """Model FLOPs per trained token (6 x multiply-adds for forward + backward; shared layers count per use)."""
    h, e, layers, ffn = cfg.hidden_size, cfg.embedding_size, cfg.num_layers, cfg.intermediate_size
    dense = layers * (4 * h * h + 2 * h * ffn) + e * h  # attention projections, FFN, embedding projection
    attention = layers * 2 * seq * h  # QK^T and AV
    head = (h * e + e * vocab) * (mask_rate if masked_only else 1.0) + h * h  # MLM head (+ pooler, negligible)
    return 6.0 * (dense + attention + head)
