"""Predictions per word (token tasks) or per sentence (classification), on CPU or GPU.

A word's prediction is read at its first piece, from the one window that owns it (see
:mod:`pretrain.finetune.features`), so every word of every sentence gets exactly one label, however long the
sentence: the label with the highest logit there, or, given the training split's label bigrams, the label of the
best sequence for the sentence (:mod:`pretrain.finetune.decoding`).

>>> tags = predict_tags(model, tok, [["EU", "rejects", "German", "call"]], id2label, max_length=128)  # doctest: +SKIP
>>> tags
[['B-ORG', 'O', 'B-MISC', 'O']]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pretrain.finetune.decoding import LabelBigrams, viterbi
from pretrain.finetune.features import sentence_inputs, special_ids, token_windows, word_pieces
from pretrain.finetune.trainer import collate


def _batches(items: Sequence, batch_size: int):
    # longest first keeps padding low; the caller maps results back by index
    order = sorted(range(len(items)), key=lambda i: -len(items[i]))
    for s in range(0, len(order), batch_size):
        yield order[s : s + batch_size]


def _outputs_by_batch(model, items: Sequence, pad_id: int, batch_size: int, *, token_labels: bool, log_probs: bool):
    """``(indices, outputs)`` per batch of ``items``, computed in inference mode on the model's device: the best
    class per position (token tasks) or per sequence, or with ``log_probs`` the log-softmax per position."""
    import torch

    device = next(model.parameters()).device
    model.eval()
    for idx in _batches(items, batch_size):
        with torch.inference_mode():  # entered per batch: the caller's code between batches runs outside it
            batch = collate([items[i] for i in idx], pad_id, device, token_labels=token_labels)
            batch.pop("labels")
            logits = model(**batch).logits
            if log_probs:
                out = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
            else:
                out = logits.argmax(-1).cpu().tolist()
        yield idx, out


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
    bigrams: LabelBigrams | None = None,
) -> list[list[str]]:
    """One predicted tag per word of every sentence (``pieces`` may pass precomputed :func:`word_pieces`); with
    ``bigrams``, the tags of each sentence's Viterbi-best sequence instead of each word's best tag."""
    cls_id, sep_id, pad_id, _ = special_ids(tokenizer)
    pieces = pieces if pieces is not None else word_pieces(tokenizer, sentences)
    windows = token_windows(pieces, None, cls_id=cls_id, sep_id=sep_id, max_length=max_length, stride=stride)
    out: list[list] = [[None] * len(s) for s in sentences]
    viterbi_ = bigrams is not None
    for idx, scores in _outputs_by_batch(model, windows, pad_id, batch_size, token_labels=True, log_probs=viterbi_):
        for row, i in enumerate(idx):
            w = windows[i]
            for word, pos in w.first:
                out[w.sentence][word] = scores[row][pos] if viterbi_ else id2label[int(scores[row][pos])]
    missing = [(s, w) for s, tags in enumerate(out) for w, t in enumerate(tags) if t is None]
    if missing:  # cannot happen with the window planner; a silent gap would corrupt the analysis
        raise AssertionError(f"words without a prediction (sentence, word): {missing[:5]}")
    if viterbi_:  # every word's log-probabilities are in; one best sequence per sentence
        out = [[id2label[k] for k in viterbi(np.stack(rows), bigrams)] if rows else [] for rows in out]
    return out


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
    for idx, best in _outputs_by_batch(model, items, pad_id, batch_size, token_labels=False, log_probs=False):
        for row, i in enumerate(idx):
            out[i] = id2label[int(best[row])]
    return out  # type: ignore[return-value]
