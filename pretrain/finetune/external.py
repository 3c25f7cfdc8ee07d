"""Predictions from a token-classification model fine-tuned elsewhere, in the files the analysis reads.

``pretrain evaluate --model`` takes any Hugging Face token-classification model, not only those
``pretrain finetune`` saved (:func:`~pretrain.finetune.evaluation.evaluate_finetuned` keeps those). The story:

1. load and check the model (:mod:`pretrain.finetune.token_classifier`);
2. map its labels onto the dataset's tags (:mod:`pretrain.finetune.label_mapping`); a dataset tag that no model
   label reaches is refused (or kept, or mapped to ``O``: ``unseen_labels``, as for our own models);
3. predict every piece's probabilities, sentence windows as our own fine-tuning cuts them
   (:func:`~pretrain.finetune.predict.predict_piece_probs`), words aligned by the tokenizer's ``word_ids()``;
4. decide each word's tag from its pieces (:mod:`pretrain.finetune.mapped_tags`): an aggregation, or Viterbi
   over the training split's tag bigrams;
5. score, and write the word predictions and the per-piece predictions, each with the mapping in its metadata.

Nothing is written until every prediction is made, and each file is written atomically.

>>> result = evaluate_external(  # doctest: +SKIP
...     "dslim/bert-base-NER", load_dataset("conll2003", "test"), predictions="dslim.test.tsv"
... )
>>> result.metrics["f1"], result.mapping.unmapped  # doctest: +SKIP
(0.91, ())
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pretrain.finetune.data import apply_unseen_policy, check_split
from pretrain.finetune.evaluation import (
    build_piece_sentences,
    token_metrics,
    write_split_piece_predictions,
    write_split_predictions,
)
from pretrain.finetune.features import word_pieces
from pretrain.finetune.label_mapping import LabelMapping, dataset_types, map_labels
from pretrain.finetune.mapped_tags import VITERBI_AGGREGATIONS, mapped_words, tag_bigrams
from pretrain.finetune.predict import predict_piece_probs
from pretrain.finetune.token_classifier import load_token_classifier
from tokstudy.analysis.model_errors.piece_agreement import AGGREGATIONS
from tokstudy.data.types import Dataset


@dataclass(frozen=True)
class ExternalOptions:
    """How a model fine-tuned elsewhere is run and read."""

    aggregate: str = "first"
    """How a word's tag comes from its pieces: ``first`` (as token classifiers are trained), ``average``,
    ``max`` or ``majority`` (:func:`tokstudy.analysis.model_errors.piece_agreement.aggregate`)."""
    viterbi: bool = False
    """Take each sentence's best tag sequence under the training split's tag bigrams (needs its tags)."""
    label_map: dict[str, str] = field(default_factory=dict)
    """Model label or type -> dataset type or tag, for types named differently (OntoNotes ``GPE`` -> ``LOC``)."""
    label_map_source: str | None = None
    """The file the label map was read from, named in errors and in the metadata."""
    max_length: int | None = None
    """Pieces per window; ``None``: as many as the model takes."""
    stride: int = 32
    """Pieces of left context a window after the first may repeat (capped at a quarter of the window)."""
    batch_size: int = 64
    """Windows per forward pass."""
    device: str = "auto"
    """``auto`` (CUDA when there is one), ``cpu``, ``cuda``, ``cuda:1`` ..."""
    unseen_labels: str = "error"
    """A dataset tag no model label maps to: ``error``, ``keep`` (a miss) or ``map_o`` (gold -> ``O``)."""
    progress: bool = False
    """A progress bar on stderr."""

    def __post_init__(self) -> None:
        if self.aggregate not in AGGREGATIONS:
            raise ValueError(f"aggregate={self.aggregate!r}; expected one of {', '.join(AGGREGATIONS)}")
        if self.viterbi and self.aggregate not in VITERBI_AGGREGATIONS:
            raise ValueError(
                f"Viterbi decoding reads one distribution per word: aggregate={self.aggregate!r} gives a label; "
                f"expected one of {', '.join(VITERBI_AGGREGATIONS)}"
            )
        if self.unseen_labels not in ("error", "keep", "map_o"):
            raise ValueError(f"unseen_labels={self.unseen_labels!r}; expected error, keep or map_o")
        if self.max_length is not None and self.max_length < 3:
            raise ValueError(f"max_length={self.max_length}; expected at least 3 ([CLS], one piece, [SEP])")
        if self.batch_size < 1 or self.stride < 0:
            raise ValueError(f"batch_size={self.batch_size}, stride={self.stride}; expected >= 1 and >= 0")


@dataclass(frozen=True)
class ExternalEvaluation:
    """What evaluating a model fine-tuned elsewhere gives."""

    metrics: dict
    """Scores and counts (JSON-ready): those of our own models, and the mapping's counts."""
    mapping: LabelMapping
    """How the model's labels became the dataset's tags."""


def evaluate_external(
    spec: str | os.PathLike,
    ds: Dataset,
    *,
    options: ExternalOptions = ExternalOptions(),
    train: Dataset | None = None,
    predictions: str | os.PathLike | None = None,
    piece_predictions: str | os.PathLike | None = None,
) -> ExternalEvaluation:
    """Predict and score ``ds`` with the model ``spec`` names (a directory or a hub name); write the word
    predictions and the per-piece predictions when asked. ``train``: the training split, whose tag bigrams
    Viterbi decoding uses (``options.viterbi``)."""
    check_split(ds, "ner")
    if options.viterbi and train is None:
        raise ValueError(f"{ds.name} {ds.split}: Viterbi decoding needs the training split's tags; none was given")
    clf = load_token_classifier(spec, device=options.device)
    tagged = [s.tags for s in ds] + ([s.tags for s in train if s.tags] if train is not None else [])
    mapping = map_labels(
        clf.labels, dataset_types(tagged), options.label_map, model=clf.path, map_source=options.label_map_source
    )
    ds, note = _check_unseen(ds, mapping, options.unseen_labels)
    max_length = min(options.max_length or clf.max_length, clf.max_length)
    words = [list(s.words) for s in ds]
    pieces = word_pieces(clf.tokenizer, words)
    probs = predict_piece_probs(
        clf.model,
        clf.tokenizer,
        words,
        max_length=max_length,
        stride=min(options.stride, (max_length - 2) // 4),
        batch_size=options.batch_size,
        pieces=pieces,
        progress=options.progress,
    )
    bigrams = tag_bigrams([s.tags for s in train if s.tags], mapping) if options.viterbi else None
    decided = mapped_words(probs, mapping, method=options.aggregate, bigrams=bigrams)
    pred = [list(t) for t in decided.tags]
    metrics = token_metrics([list(s.tags) for s in ds], pred, pieces, max_length=max_length)
    metrics.update(
        n_sentences=len(ds),
        n_words=ds.n_words,
        max_length=max_length,
        n_repaired_tags=decided.n_repaired,
        n_unmapped_pieces=decided.n_unmapped_pieces,
        n_unmapped_words=decided.n_unmapped_words,
        label_map=dict(zip(mapping.model_labels, mapping.targets)),
        labels_to_o=list(mapping.unmapped),
        notes=[note] if note else [],
    )
    about = {
        "dataset": ds.name,
        "split": ds.split,
        "language": ds.language,
        "model": clf.name,
        "model_name": Path(clf.name).name,
        "task": "ner",
        "aggregate": options.aggregate,
        "decode": "viterbi" if options.viterbi else "argmax",
        "max_length": max_length,
        "n_windowed_sentences": metrics["n_windowed_sentences"],
        "label_map_file": options.label_map_source,
        **mapping.metadata(),
    }
    if predictions is not None:
        write_split_predictions(predictions, ds, pred, task="ner", metadata=about)
    if piece_predictions is not None:
        sentences = build_piece_sentences(clf.tokenizer, ds, pieces, decided.probs, decided.best)
        write_split_piece_predictions(piece_predictions, sentences, dict(enumerate(mapping.labels)), metadata=about)
    return ExternalEvaluation(metrics, mapping)


def _check_unseen(ds: Dataset, mapping: LabelMapping, policy: str) -> tuple[Dataset, str | None]:
    """``ds`` when every gold tag is one the model can predict; else one line (``error``), or the split with
    the tags kept or mapped to ``O`` (:func:`~pretrain.finetune.data.apply_unseen_policy`)."""
    known = set(mapping.labels)
    counts = Counter(t for s in ds for t in s.tags if t not in known)
    if not counts:
        return ds, None
    listed = ", ".join(f"{t} ({n}x)" for t, n in sorted(counts.items()))
    if policy == "error":
        raise ValueError(
            f"{ds.name} {ds.split}: gold tag(s) {listed} are not among the model's labels after mapping "
            f"({', '.join(mapping.pairs())}); pass --label-map FILE naming the model's label for them, or "
            "--unseen-labels keep (count them as misses) or map_o (gold -> O)"
        )
    fixed, _ = apply_unseen_policy(ds, mapping.labels, "ner", policy)
    done = "kept as gold: they count as misses" if policy == "keep" else "mapped to O"
    return fixed, f"{ds.name} {ds.split}: gold tag(s) the model cannot predict ({listed}) {done}"
