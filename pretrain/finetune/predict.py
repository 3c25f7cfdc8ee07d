"""Predictions per word (token tasks) or per sentence (classification), on CPU or GPU.

A word's prediction is the label with the highest logit at its first piece, read from
the one window that owns it (see :mod:`pretrain.finetune.features`), so every word of
every sentence gets exactly one label, however long the sentence.

>>> tags = predict_tags(model, tok, [["EU", "rejects", "German", "call"]], id2label, max_length=128)  # doctest: +SKIP
>>> tags
[['B-ORG', 'O', 'B-MISC', 'O']]
"""

from __future__ import annotations

from typing import Sequence

from pretrain.finetune.features import sentence_inputs, special_ids, token_windows, word_pieces
from pretrain.finetune.trainer import collate


def _batches(items: Sequence, batch_size: int):
    # longest first keeps padding low; the caller maps results back by index
    order = sorted(range(len(items)), key=lambda i: -len(items[i]))
    for s in range(0, len(order), batch_size):
        yield order[s : s + batch_size]


def _argmax_by_batch(model, items: Sequence, pad_id: int, batch_size: int, *, token_labels: bool) -> list:
    """``(indices, argmax)`` per batch of ``items``: the model's best class per position (token tasks) or
    per sequence, computed in inference mode on the model's device."""
    import torch

    device = next(model.parameters()).device
    model.eval()
    results = []
    with torch.inference_mode():
        for idx in _batches(items, batch_size):
            batch = collate([items[i] for i in idx], pad_id, device, token_labels=token_labels)
            batch.pop("labels")
            results.append((idx, model(**batch).logits.argmax(-1).cpu().tolist()))
    return results


def predict_tags(
    model,
    tokenizer,
    sentences: Sequence[Sequence[str]],
    id2label: dict,
    *,
    max_length: int,
    stride: int = 32,
    batch_size: int = 64,
    pieces: list | None = None,
) -> list[list[str]]:
    """One predicted tag per word of every sentence (``pieces`` may pass precomputed :func:`word_pieces`)."""
    cls_id, sep_id, pad_id, _ = special_ids(tokenizer)
    pieces = pieces if pieces is not None else word_pieces(tokenizer, sentences)
    windows = token_windows(pieces, None, cls_id=cls_id, sep_id=sep_id, max_length=max_length, stride=stride)
    out: list[list[str | None]] = [[None] * len(s) for s in sentences]
    for idx, best in _argmax_by_batch(model, windows, pad_id, batch_size, token_labels=True):
        for row, i in enumerate(idx):
            w = windows[i]
            for word, pos in w.first:
                out[w.sentence][word] = id2label[int(best[row][pos])]
    missing = [(s, w) for s, tags in enumerate(out) for w, t in enumerate(tags) if t is None]
    if missing:  # cannot happen with the window planner; a silent gap would corrupt the analysis
        raise AssertionError(f"words without a prediction (sentence, word): {missing[:5]}")
    return out  # type: ignore[return-value]


def predict_labels(
    model,
    tokenizer,
    sentences: Sequence[Sequence[str]],
    id2label: dict,
    *,
    max_length: int,
    batch_size: int = 64,
    pieces: list | None = None,
) -> list[str]:
    """One predicted label per sentence."""
    cls_id, sep_id, pad_id, _ = special_ids(tokenizer)
    pieces = pieces if pieces is not None else word_pieces(tokenizer, sentences)
    items = sentence_inputs(pieces, None, cls_id=cls_id, sep_id=sep_id, max_length=max_length)
    out: list[str | None] = [None] * len(items)
    for idx, best in _argmax_by_batch(model, items, pad_id, batch_size, token_labels=False):
        for row, i in enumerate(idx):
            out[i] = id2label[int(best[row])]
    return out  # type: ignore[return-value]
