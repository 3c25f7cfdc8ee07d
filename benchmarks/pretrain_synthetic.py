"""The synthetic example store of ``bench_pretrain.py``: Zipf-distributed ids; 90 % of examples fill
``max_seq_length``, 10 % are shorter (as ALBERT's ``short_seq_prob`` = 0.1 gives); 15 % of tokens masked.

Speed depends on shapes, not on what the ids mean, and a 128k-piece tokenizer cannot be trained on the
small corpora here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def synthetic_store(path: Path, *, vocab_size: int, max_seq: int, n: int, seed: int = 0) -> Path:
    """An example store of ``n`` synthetic ALBERT examples (see the module docstring)."""
    from pretrain.data.store import ExampleStoreWriter

    rng = np.random.default_rng(seed)
    max_pred = int(np.ceil(0.15 * max_seq))
    lengths = np.where(rng.random(n) < 0.9, max_seq, rng.integers(8, max_seq + 1, n))
    ranks = np.arange(1, vocab_size - 4, dtype=np.float64)
    zipf = (1 / ranks) / (1 / ranks).sum()
    ids = np.zeros((n, max_seq), np.int64)
    pos = np.full((n, max_pred), -1, np.int64)
    lab = np.full((n, max_pred), -100, np.int64)
    b_start = np.zeros(n, np.int64)
    for i, length in enumerate(lengths):
        body = 5 + rng.choice(len(ranks), size=length, p=zipf)
        b = int(rng.integers(2, length - 1))
        body[0], body[b - 1], body[length - 1] = 2, 3, 3
        k = min(max_pred, max(1, round(0.15 * (length - 3))))
        cand = np.setdiff1d(np.arange(1, length - 1), [b - 1])
        chosen = np.sort(rng.choice(cand, size=k, replace=False))
        lab[i, :k], pos[i, :k] = body[chosen], chosen
        body[chosen] = 4
        ids[i, :length], b_start[i] = body, b
    meta = {"vocab_size": vocab_size, "special_ids": {"pad": 0, "unk": 1, "cls": 2, "sep": 3, "mask": 4}, "task": "sop"}
    writer = ExampleStoreWriter(path, max_seq_length=max_seq, max_predictions=max_pred, meta=meta)
    writer.append_batch(
        input_ids=ids,
        lengths=lengths,
        segment_b_start=b_start,
        sentence_order_label=rng.integers(0, 2, n),
        mlm_positions=pos,
        mlm_labels=lab,
    )
    return writer.close()
