"""Predictions per word (token tasks) or per sentence (classification), on CPU or GPU.

A word's prediction is read at its first piece, from the one window that owns it (see
:mod:`pretrain.finetune.features`), so every word of every sentence gets exactly one label, however long the
sentence: the label with the highest logit there, or, given the training split's label bigrams, the label of the
best sequence for the sentence (:mod:`pretrain.finetune.decoding`). :func:`predict_piece_probs` gives every
piece's probabilities instead (the per-piece predictions file, :mod:`tokstudy.analysis.model_errors.piece_agreement`).

>>> tags = predict_tags(model, tok, [["EU", "rejects", "German", "call"]], id2label, max_length=128)  # doctest: +SKIP
>>> tags
[['B-ORG', 'O', 'B-MISC', 'O']]
"""

from __future__ import annotations

import contextlib
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


def _outputs_by_batch(
    model,
    items: Sequence,
    pad_id: int,
    batch_size: int,
    *,
    token_labels: bool,
    log_probs: bool,
    bf16: bool = True,
    progress: bool = False,
):
    """``(indices, outputs)`` per batch of ``items``, computed in inference mode on the model's device: the best
    class per position (token tasks) or per sequence, or with ``log_probs`` the log-softmax per position.

    Every batch is queued on the device first and the outputs come back to the host in one copy at the end, so
    the host never waits for the device between batches. On CUDA the forward passes run under bf16 autocast
    (``bf16``); the log-softmax is taken in float32. ``progress``: a bar on stderr, one step per batch."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    device = next(model.parameters()).device
    autocast = device.type == "cuda" and bf16
    model.eval()
    batches, outputs = list(_batches(items, batch_size)), []
    for idx in _progress(batches, progress):
        with torch.inference_mode():  # entered per batch: the caller's code between batches runs outside it
            batch = collate([items[i] for i in idx], pad_id, device, token_labels=token_labels)
            batch.pop("labels")
            with torch.autocast("cuda", dtype=torch.bfloat16) if autocast else contextlib.nullcontext():
                logits = model(**batch).logits
            outputs.append(torch.log_softmax(logits.float(), dim=-1) if log_probs else logits.argmax(-1))
    for idx, out in zip(batches, _to_host(outputs)):
        yield idx, out if log_probs else out.tolist()


def _progress(batches: list, enabled: bool):
    """``batches``, counted by a bar on stderr when ``enabled`` (the windows predicted, batch by batch)."""
    if not enabled:
        return batches
    # deferred: tqdm.auto (~50 ms, asyncio), only when a bar is shown
    from tqdm.auto import tqdm

    return tqdm(batches, desc="predict", unit="batch", dynamic_ncols=True)


def _to_host(outputs: list) -> list:
    """The per-batch outputs as numpy arrays, brought over in one device-to-host copy (padded to the widest batch
    along the position axis, then cut back to each batch's own width)."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    if not outputs:
        return []
    if outputs[0].dim() == 1:  # one value per sequence
        host = torch.cat(outputs).cpu().numpy()
        bounds = np.cumsum([0] + [len(o) for o in outputs])
        return [host[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    width = max(o.shape[1] for o in outputs)
    padded = [torch.nn.functional.pad(o, (0, 0) * (o.dim() - 2) + (0, width - o.shape[1])) for o in outputs]
    host = torch.cat(padded).cpu().numpy()
    bounds = np.cumsum([0] + [len(o) for o in outputs])
    return [host[a:b, : o.shape[1]] for a, b, o in zip(bounds[:-1], bounds[1:], outputs)]


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
    bf16: bool = True,
) -> list[list[str]]:
    """One predicted tag per word of every sentence (``pieces`` may pass precomputed :func:`word_pieces`); with
    ``bigrams``, the tags of each sentence's Viterbi-best sequence instead of each word's best tag. ``bf16``: on
    CUDA, predict under bf16 autocast."""
    cls_id, sep_id, pad_id, _ = special_ids(tokenizer)
    pieces = pieces if pieces is not None else word_pieces(tokenizer, sentences)
    windows = token_windows(pieces, None, cls_id=cls_id, sep_id=sep_id, max_length=max_length, stride=stride)
    out: list[list] = [[None] * len(s) for s in sentences]
    viterbi_ = bigrams is not None
    batches = _outputs_by_batch(model, windows, pad_id, batch_size, token_labels=True, log_probs=viterbi_, bf16=bf16)
    for idx, scores in batches:
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


def predict_piece_probs(
    model,
    tokenizer,
    sentences: Sequence[Sequence[str]],
    *,
    max_length: int,
    stride: int = 32,
    batch_size: int = 64,
    pieces: list | None = None,
    bf16: bool = True,
    progress: bool = False,
) -> list[list[np.ndarray]]:
    """Every piece's softmax over the labels: ``out[s][w]`` is ``[predicted pieces, labels]`` for word ``w`` of
    sentence ``s``, read from the one window that owns the word (the same window, and the same first piece, as
    :func:`predict_tags`). A word longer than a window keeps the pieces that fit, so it may have fewer rows than
    pieces; every word has at least one. Probabilities are float64, from the float32 log-softmax. ``progress``:
    a bar on stderr."""
    cls_id, sep_id, pad_id, _ = special_ids(tokenizer)
    pieces = pieces if pieces is not None else word_pieces(tokenizer, sentences)
    windows = token_windows(pieces, None, cls_id=cls_id, sep_id=sep_id, max_length=max_length, stride=stride)
    out: list[list] = [[None] * len(s) for s in sentences]
    batches = _outputs_by_batch(
        model, windows, pad_id, batch_size, token_labels=True, log_probs=True, bf16=bf16, progress=progress
    )
    for idx, scores in batches:
        for row, i in enumerate(idx):
            w = windows[i]
            # an owned word's pieces run from its first piece to the next owned word's (the last to [SEP])
            ends = [pos for _, pos in w.first[1:]] + [len(w) - 1]
            for (word, pos), end in zip(w.first, ends):
                out[w.sentence][word] = np.exp(scores[row][pos:end].astype(np.float64))
    missing = [(s, w) for s, probs in enumerate(out) for w, p in enumerate(probs) if p is None]
    if missing:  # cannot happen with the window planner, as in predict_tags
        raise AssertionError(f"words without a prediction (sentence, word): {missing[:5]}")
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
    bf16: bool = True,
) -> list[str]:
    """One predicted label per sentence (``bf16``: on CUDA, under bf16 autocast)."""
    cls_id, sep_id, pad_id, _ = special_ids(tokenizer)
    pieces = pieces if pieces is not None else word_pieces(tokenizer, sentences)
    items = sentence_inputs(pieces, None, cls_id=cls_id, sep_id=sep_id, max_length=max_length)
    out: list[str | None] = [None] * len(items)
    for idx, best in _outputs_by_batch(
        model, items, pad_id, batch_size, token_labels=False, log_probs=False, bf16=bf16
    ):
        for row, i in enumerate(idx):
            out[i] = id2label[int(best[row])]
    return out  # type: ignore[return-value]
