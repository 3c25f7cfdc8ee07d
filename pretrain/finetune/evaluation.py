"""Score a model on one split and write its per-word predictions for ``tokstudy correlate``.

Token tasks: seqeval entity F1 in default and strict IOB2 mode, per-type scores and
word accuracy; predictions go through :func:`tokstudy.analysis.model_errors.predictions.write_predictions`
(``word<TAB>gold<TAB>pred``, metadata comments), so the analysis reads them as they are.
Classification: accuracy; predictions as ``sent_id<TAB>gold<TAB>pred<TAB>text`` (atomic).
Token tasks may also write every piece's label and probabilities (:func:`write_split_piece_predictions`, the
format of :mod:`tokstudy.analysis.model_errors.piece_predictions`, read by ``tokstudy pieces``).

>>> metrics, pred = score_split(model, tok, test, task="ner", id2label=id2label, max_length=128)  # doctest: +SKIP
>>> write_split_predictions("out/predictions.test.tsv", test, pred, task="ner", metadata={"seed": 1})  # doctest: +SKIP
"""

from __future__ import annotations

import os
from pathlib import Path

from pretrain.finetune.data import apply_unseen_policy, check_split
from pretrain.finetune.decoding import LabelBigrams
from pretrain.finetune.features import word_pieces
from pretrain.finetune.metrics import accuracy, entity_scores, token_accuracy
from pretrain.finetune.modeling import load_finetuned
from pretrain.finetune.predict import predict_labels, predict_piece_probs, predict_tags
from tokstudy.analysis.model_errors.piece_predictions import PieceSentence, PredictedWord, write_piece_predictions
from tokstudy.analysis.model_errors.predictions import write_predictions
from tokstudy.data.registry import DatasetTask
from tokstudy.data.types import Dataset
from tokstudy.fileio import atomic_write_text


def score_split(
    model,
    tokenizer,
    ds: Dataset,
    *,
    task: DatasetTask,
    id2label: dict,
    max_length: int,
    stride: int = 32,
    batch_size: int = 64,
    bigrams: LabelBigrams | None = None,
    pieces: list | None = None,
    bf16: bool = True,
) -> tuple[dict, list]:
    """Predict ``ds`` and score it; returns ``(metrics, predictions)`` (tags per sentence, or labels).

    Token tasks decode with ``bigrams`` (Viterbi) when given, else word by word (see
    :mod:`pretrain.finetune.decoding`). ``pieces``: the split's :func:`word_pieces`, when the caller scores the same
    split repeatedly (the dev split at every evaluation); ``bf16``: on CUDA, predict under bf16 autocast."""
    words = [list(s.words) for s in ds]
    pieces = pieces if pieces is not None else word_pieces(tokenizer, words)
    if task == DatasetTask.NER:
        pred = predict_tags(
            model,
            tokenizer,
            words,
            id2label,
            max_length=max_length,
            stride=stride,
            batch_size=batch_size,
            pieces=pieces,
            bigrams=bigrams,
            bf16=bf16,
        )
        metrics = token_metrics([list(s.tags) for s in ds], pred, pieces, max_length=max_length)
    else:
        pred = predict_labels(
            model, tokenizer, words, id2label, max_length=max_length, batch_size=batch_size, pieces=pieces, bf16=bf16
        )
        metrics = {
            "accuracy": accuracy([s.label for s in ds], pred),
            "n_truncated": sum(1 for p in pieces if sum(map(len, p)) > max_length - 2),
        }
    metrics.update({"n_sentences": len(ds), "n_words": ds.n_words})
    return metrics, pred


def token_metrics(gold: list, pred: list, pieces: list, *, max_length: int) -> dict:
    """Entity scores (seqeval default and strict IOB2), per type, word accuracy, and how many sentences were
    longer than one window of ``max_length`` (``pieces``: the split's :func:`word_pieces`)."""
    default, strict = entity_scores(gold, pred), entity_scores(gold, pred, mode="strict")
    return {
        "f1": default.f1,
        "precision": default.precision,
        "recall": default.recall,
        "f1_strict": strict.f1,
        "precision_strict": strict.precision,
        "recall_strict": strict.recall,
        "token_accuracy": token_accuracy(gold, pred),
        "n_gold_entities": default.n_gold,
        "n_pred_entities": default.n_pred,
        "per_type": {t: vars(v) for t, v in default.per_type.items()},
        "per_type_strict": {t: vars(v) for t, v in strict.per_type.items()},
        "n_windowed_sentences": sum(1 for p in pieces if sum(map(len, p)) > max_length - 2),
    }


def write_split_predictions(
    path: str | os.PathLike, ds: Dataset, pred: list, *, task: DatasetTask, metadata: dict
) -> Path:
    """Write predictions for ``ds`` atomically (format by task, see the module docstring)."""
    meta = {k: str(v) for k, v in metadata.items() if v is not None}
    if task == DatasetTask.NER:
        return write_predictions(
            path, ((s.words, s.tags, p) for s, p in zip(ds, pred)), metadata=meta, sent_ids=[s.sent_id for s in ds]
        )
    lines = [f"# {k}={v}" for k, v in meta.items()] + ["sent_id\tgold\tpred\ttext"]
    lines += [f"{s.sent_id}\t{s.label}\t{p}\t{' '.join(s.words)}" for s, p in zip(ds, pred)]
    return atomic_write_text(path, "\n".join(lines) + "\n")


def piece_sentences(
    model,
    tokenizer,
    ds: Dataset,
    *,
    max_length: int,
    stride: int = 32,
    batch_size: int = 64,
    pieces: list | None = None,
    bf16: bool = True,
) -> list[PieceSentence]:
    """Every piece of every word of ``ds`` with the model's probabilities (:func:`predict_piece_probs`), the
    piece's text as the tokenizer writes it and the word's gold tag."""
    words = [list(s.words) for s in ds]
    pieces = pieces if pieces is not None else word_pieces(tokenizer, words)
    probs = predict_piece_probs(
        model, tokenizer, words, max_length=max_length, stride=stride, batch_size=batch_size, pieces=pieces, bf16=bf16
    )
    return build_piece_sentences(tokenizer, ds, pieces, probs)


def build_piece_sentences(tokenizer, ds: Dataset, pieces: list, probs, best=None) -> list[PieceSentence]:
    """The :class:`PieceSentence` of every sentence of ``ds`` from its words' ``pieces`` (:func:`word_pieces`)
    and predicted ``probs`` (``[predicted pieces, labels]`` per word); ``best``: each piece's best label id
    per word, when it is not the argmax of ``probs``."""
    best = best if best is not None else [[None] * len(s) for s in probs]
    out = []
    for s, sent_pieces, sent_probs, sent_best in zip(ds, pieces, probs, best):
        out.append(
            PieceSentence(
                s.sent_id,
                tuple(
                    PredictedWord(w, t, len(ids), tuple(tokenizer.convert_ids_to_tokens(ids[: len(p)])), p, b)
                    for w, t, ids, p, b in zip(s.words, s.tags, sent_pieces, sent_probs, sent_best)
                ),
            )
        )
    return out


def write_split_piece_predictions(
    path: str | os.PathLike, sentences: list[PieceSentence], id2label: dict, *, metadata: dict
) -> Path:
    """Write the per-piece predictions of a split atomically (labels in id order)."""
    labels = [id2label[k] for k in range(len(id2label))]
    return write_piece_predictions(path, labels, sentences, metadata=metadata)


def evaluate_finetuned(
    model_dir: str | os.PathLike,
    ds: Dataset,
    *,
    predictions: str | os.PathLike | None = None,
    piece_predictions: str | os.PathLike | None = None,
    unseen_labels: str = "error",
    batch_size: int = 64,
    device: str = "auto",
) -> dict:
    """Score a saved fine-tuned model (``OUT/seed-K/model``) on ``ds``; optionally write its predictions, and
    (token tasks) every piece's probabilities into ``piece_predictions``.

    >>> evaluate_finetuned(  # doctest: +SKIP
    ...     "runs/c03/seed-1/model", load_dataset("conll2003", "test"), predictions="p.tsv"
    ... )
    {'f1': 0.88, ...}
    """
    model, tok, meta = load_finetuned(model_dir, device=device)
    task, labels = meta["task"], tuple(meta["labels"])
    check_split(ds, task)
    ds, note = apply_unseen_policy(ds, labels, task, unseen_labels)
    metrics, pred = score_split(
        model,
        tok,
        ds,
        task=task,
        id2label=dict(enumerate(labels)),
        max_length=meta["max_length"],
        stride=meta["stride"],
        batch_size=batch_size,
        bigrams=LabelBigrams.from_dict(meta["label_bigrams"]) if meta.get("label_bigrams") else None,
    )
    metrics["notes"] = [note] if note else []
    about = {
        "dataset": ds.name,
        "split": ds.split,
        "language": ds.language,
        "model": str(model_dir),
        "model_name": meta.get("model_name"),
        "seed": meta.get("seed"),
        "task": task,
    }
    if predictions is not None:
        write_split_predictions(predictions, ds, pred, task=task, metadata=about)
    if piece_predictions is not None:
        if task is not DatasetTask.NER:
            raise ValueError(f"{model_dir}: per-piece predictions need a token task, this model is '{task}'")
        sentences = piece_sentences(
            model, tok, ds, max_length=meta["max_length"], stride=meta["stride"], batch_size=batch_size
        )
        write_split_piece_predictions(piece_predictions, sentences, dict(enumerate(labels)), metadata=about)
    return metrics
