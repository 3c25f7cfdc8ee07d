"""Fine-tune one model on one dataset over N seeds: the unit the study repeats per model and dataset.

Output directory layout (everything written atomically)::

    OUT/
      run.json                 written last: config, per-seed scores, mean ± std. Its presence
                               means the run is complete; `pretrain compare` reads only these.
      seed-1/
        metrics.json           dev and test scores, training history, label set
        predictions.test.tsv   per-word predictions (tokstudy format, read by `tokstudy correlate`)
        predictions.test.pieces.tsv  every piece's label and probabilities (``piece_predictions``; read by
                               `tokstudy pieces`)
        model/                 the fine-tuned model + tokenizer + finetune.json (if save_models)
      seed-2/ ...

A seed directory is built under a temporary name and renamed when complete, so a
crash leaves no directory that looks finished. Re-running the same settings reuses
finished seeds (a changed setting that affects training retrains them).

>>> config = FinetuneConfig(model="models/albert-32k", task="ner", dataset="conll2003", n_seeds=3)
>>> result = finetune(config, "runs/c03")  # doctest: +SKIP
>>> result.summary["f1"].format()  # doctest: +SKIP
'88.10 ± 0.31'
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from pretrain.cost import CostMeter
from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.data import TaskData, load_task
from pretrain.finetune.decoding import label_bigrams
from pretrain.finetune.evaluation import (
    piece_sentences,
    score_split,
    write_split_piece_predictions,
    write_split_predictions,
)
from pretrain.finetune.features import sentence_inputs, special_ids, token_windows, word_pieces
from pretrain.finetune.modeling import FINETUNE_META, load_for_task, max_positions
from pretrain.finetune.trainer import resolve_device, seed_everything, train
from tokstudy.analysis.model_errors.piece_predictions import piece_predictions_path
from tokstudy.analysis.stats.welch import Summary, summarize
from tokstudy.data.registry import DatasetTask
from tokstudy.fileio import atomic_write_text, replace_folder, staging_folder

RUN_FILE = "run.json"
SEED_FILE = "metrics.json"
PRIMARY = {DatasetTask.NER: "f1", DatasetTask.CLASSIFICATION: "accuracy"}
#: test metrics summarised over seeds, per task
SUMMARISED = {
    DatasetTask.NER: ("f1", "precision", "recall", "f1_strict", "token_accuracy"),
    DatasetTask.CLASSIFICATION: ("accuracy",),
}


@dataclass(frozen=True)
class RunResult:
    """A finished multi-seed run: where it lives, per-seed metrics and their summaries."""

    output_dir: Path
    config: FinetuneConfig
    seeds: tuple[dict, ...]
    summary: dict

    @property
    def metric(self) -> str:
        return PRIMARY[self.config.task]


def _dump(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n"


def _declared_subset(config: FinetuneConfig, ds) -> str | None:
    """``first:N`` when evaluation was cut to the split's first ``N`` sentences (``max_eval_sentences``),
    so that readers of the predictions file know it covers part of the split (see
    :func:`tokstudy.analysis.model_errors.predictions_metadata.declared_subset`); ``None`` (no metadata
    line) otherwise."""
    n = config.max_eval_sentences
    return f"first:{n}" if n is not None and len(ds) >= n else None


@dataclass(frozen=True)
class SeedSetup:
    """One seed's model, ready to train: the model and its tokenizer on ``device``, the training items (windows
    of pieces for tagging, one input per sentence for classification) and how predictions are decoded."""

    model: object
    tokenizer: object
    device: object
    max_length: int
    stride: int
    special_ids: tuple[int, int, int, int]
    """``(cls, sep, pad, unk)`` of the tokenizer."""
    id2label: dict[int, str]
    items: list
    bigrams: object | None
    """The training split's label bigrams for Viterbi decoding (tagging with ``decode="viterbi"``), else None."""

    def scoring(self, config: FinetuneConfig) -> dict:
        """The keyword arguments of :func:`~pretrain.finetune.evaluation.score_split` for this model."""
        return dict(
            task=config.task,
            id2label=self.id2label,
            max_length=self.max_length,
            stride=self.stride,
            batch_size=config.eval_batch_size,
            bigrams=self.bigrams,
            bf16=config.autocast_bf16,
        )

    def meta(self, config: FinetuneConfig, data: TaskData, seed: int) -> dict:
        """What identifies the seed's results: task, data, labels, windows, base model, training key."""
        meta = {
            "seed": seed,
            "task": config.task.value,
            "dataset": config.dataset,
            "language": data.test.language,
            "labels": list(data.labels),
            "max_length": self.max_length,
            "stride": self.stride,
            "base_model": str(config.model),
            "model_name": config.display_name(),
            "training_key": config.training_key(),
        }
        if self.bigrams is not None:
            meta["decode"] = "viterbi"
        return meta


@dataclass(frozen=True)
class SeedRecord:
    """What one seed wrote to ``metrics.json``: its identity (:meth:`SeedSetup.meta`), dev and test scores, the
    training history and what the seed cost."""

    meta: dict
    dev: dict
    test: dict
    notes: list[str]
    train: dict
    """The trainer's result, the device and torch's version."""
    eval_seconds: float
    cost: dict
    sizes: dict
    """Sentences per split and training items."""

    def to_dict(self) -> dict:
        return {
            **self.meta,
            "dev": self.dev,
            "test": self.test,
            "notes": self.notes,
            "train": self.train,
            "eval_seconds": self.eval_seconds,
            "cost": self.cost,
            "sizes": self.sizes,
        }


def finetune_seed(config: FinetuneConfig, data: TaskData, seed: int, seed_dir: Path) -> dict:
    """Train and evaluate one seed; writes ``seed_dir`` atomically and returns its metrics."""
    meter = CostMeter()  # wall time, kWh, CO2e of this seed (training + evaluation)
    seed_everything(seed)  # the classifier head is initialised from this seed
    setup = _setup_seed(config, data)
    result = _train_seed(setup, config, data, seed)
    return _write_seed(setup, config, data, seed, seed_dir, result, meter)


def _setup_seed(config: FinetuneConfig, data: TaskData) -> SeedSetup:
    """Load the model for the task, on its device, and cut the training split into items."""
    model, tok = load_for_task(config.model, config.task, data.labels, dropout=config.dropout)
    device = resolve_device(config.device)
    model.to(device)
    max_length = max_positions(model, config.max_length)
    stride = min(config.stride, (max_length - 2) // 2 - 1)
    cls_id, sep_id, pad_id, unk_id = special_ids(tok)
    id2label = dict(enumerate(data.labels))
    label2id = {lab: i for i, lab in id2label.items()}

    pieces = word_pieces(tok, [list(s.words) for s in data.train])
    if config.task is DatasetTask.NER:
        labels = [[label2id[t] for t in s.tags] for s in data.train]
        items = token_windows(
            pieces,
            labels,
            cls_id=cls_id,
            sep_id=sep_id,
            max_length=max_length,
            stride=stride,
            label_all_pieces=config.label_all_pieces,
        )
    else:
        items = sentence_inputs(
            pieces, [label2id[s.label] for s in data.train], cls_id=cls_id, sep_id=sep_id, max_length=max_length
        )
    # Viterbi decoding reads the label bigrams of the training split (the words' labels, not the windows')
    bigrams = (
        label_bigrams(
            ([label2id[t] for t in s.tags] for s in data.train), len(data.labels), prior_scale=config.decode_prior_scale
        )
        if config.decode == "viterbi" and config.task is DatasetTask.NER
        else None
    )
    return SeedSetup(model, tok, device, max_length, stride, (cls_id, sep_id, pad_id, unk_id), id2label, items, bigrams)


def _train_seed(setup: SeedSetup, config: FinetuneConfig, data: TaskData, seed: int):
    """Train ``setup.model`` in place, keeping the best dev epoch; returns the trainer's result."""
    cls_id, sep_id, pad_id, unk_id = setup.special_ids
    common, primary = setup.scoring(config), PRIMARY[config.task]
    dev_pieces = word_pieces(setup.tokenizer, [list(s.words) for s in data.dev])  # once, not at every evaluation

    def dev_score(m) -> float:
        return score_split(m, setup.tokenizer, data.dev, pieces=dev_pieces, **common)[0][primary]

    return train(
        setup.model,
        setup.items,
        evaluate=dev_score,
        config=config,
        seed=seed,
        pad_id=pad_id,
        device=setup.device,
        token_labels=config.task is DatasetTask.NER,
        unk_id=unk_id,
        keep_ids=(cls_id, sep_id, pad_id),
    )


def _write_seed(
    setup: SeedSetup, config: FinetuneConfig, data: TaskData, seed: int, seed_dir: Path, result, meter: CostMeter
) -> dict:
    """Score dev and test, write predictions, the model (``save_models``) and ``metrics.json`` into a temporary
    folder renamed to ``seed_dir`` when complete; returns the record."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    tmp = staging_folder(seed_dir)
    try:
        start = time.perf_counter()
        scores = _score_splits(setup, config, data, seed, tmp)
        eval_seconds = time.perf_counter() - start
        meta = setup.meta(config, data, seed)
        if config.save_models:
            _save_model(setup, tmp / "model", meta)
        record = SeedRecord(
            meta,
            dev=scores["dev"],
            test=scores["test"],
            notes=list(data.notes),
            train={**vars(result), "device": str(setup.device), "torch": torch.__version__},
            eval_seconds=eval_seconds,
            cost=meter.stop().to_dict(),
            sizes={
                "train": len(data.train),
                "dev": len(data.dev),
                "test": len(data.test),
                "train_items": len(setup.items),
            },
        ).to_dict()
        atomic_write_text(tmp / SEED_FILE, _dump(record))
        replace_folder(tmp, seed_dir)
    except BaseException:
        meter.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return record


def _score_splits(setup: SeedSetup, config: FinetuneConfig, data: TaskData, seed: int, folder: Path) -> dict:
    """Dev and test metrics; the per-word predictions of ``config.predict_splits`` written into ``folder``."""
    scores = {}
    for split_name, ds in (("dev", data.dev), ("test", data.test)):
        metrics, pred = score_split(setup.model, setup.tokenizer, ds, **setup.scoring(config))
        scores[split_name] = metrics
        if split_name in config.predict_splits:
            meta = {
                "dataset": config.dataset,
                "split": ds.split,
                "language": ds.language,
                "model": config.model,
                "model_name": config.display_name(),
                "seed": seed,
                "task": config.task.value,
                "subset": _declared_subset(config, ds),
            }
            path = folder / f"predictions.{split_name}.tsv"
            write_split_predictions(path, ds, pred, task=config.task, metadata=meta)
            if config.piece_predictions and config.task is DatasetTask.NER:
                kw = {k: v for k, v in setup.scoring(config).items() if k not in ("task", "id2label", "bigrams")}
                sentences = piece_sentences(setup.model, setup.tokenizer, ds, **kw)
                write_split_piece_predictions(piece_predictions_path(path), sentences, setup.id2label, metadata=meta)
    return scores


def _save_model(setup: SeedSetup, folder: Path, meta: dict) -> None:
    """The fine-tuned model, its tokenizer and ``finetune.json`` (with the label bigrams when Viterbi-decoded)."""
    setup.model.to("cpu").save_pretrained(folder)
    setup.tokenizer.save_pretrained(folder)
    # the bigrams go with the model only (pretrain evaluate decodes it as it was decoded here), not into
    # every seed's metrics.json: for SNIPS' 72 labels they are about 150 KB
    saved = meta if setup.bigrams is None else {**meta, "label_bigrams": setup.bigrams.to_dict()}
    atomic_write_text(folder / FINETUNE_META, _dump(saved))


def _finished_seed(seed_dir: Path, config: FinetuneConfig, seed: int) -> dict | None:
    path = seed_dir / SEED_FILE
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    key = json.loads(json.dumps(config.training_key(), default=str))
    wanted = [f"predictions.{s}.tsv" for s in config.predict_splits]
    if config.piece_predictions and config.task is DatasetTask.NER:
        wanted += [piece_predictions_path(w).name for w in wanted]
    missing = [w for w in wanted if not (seed_dir / w).is_file()]
    if record.get("seed") != seed or record.get("training_key") != key or missing:
        return None
    if config.save_models and not (seed_dir / "model" / FINETUNE_META).is_file():
        return None
    return record


def summarize_seeds(records: list[dict], task: DatasetTask) -> dict[str, Summary]:
    """Mean ± std over seeds of each summarised test metric."""
    return {m: summarize([r["test"][m] for r in records]) for m in SUMMARISED[task]}


def finetune(config: FinetuneConfig, output_dir, *, data: TaskData | None = None, resume: bool = True) -> RunResult:
    """Run every seed of ``config`` into ``output_dir`` and write ``run.json`` last.

    ``data`` may pass in-memory splits (then ``config.dataset`` only labels the results);
    otherwise they are read from the registry. With ``resume``, finished seeds with the
    same training settings are reused.
    """
    output_dir = Path(output_dir)
    run_file = output_dir / RUN_FILE
    # a stale run.json must not stand for this (possibly different, possibly failing) run
    run_file.unlink(missing_ok=True)
    data = data if data is not None else load_task(config)
    records = []
    for seed in config.seeds():
        seed_dir = output_dir / f"seed-{seed}"
        record = _finished_seed(seed_dir, config, seed) if resume else None
        records.append(record if record is not None else finetune_seed(config, data, seed, seed_dir))
    summary = summarize_seeds(records, config.task)
    payload = {
        "format": "tokstudy-finetune-run/1",
        "config": config.to_dict(),
        "model_name": config.display_name(),
        "dataset": config.dataset,
        "language": data.test.language,
        "task": config.task.value,
        "metric": PRIMARY[config.task],
        "test_split": data.test.split,
        "labels": list(data.labels),
        "notes": list(data.notes),
        "seeds": config.seeds(),
        "per_seed": [
            {
                "seed": r["seed"],
                "dev": r["dev"].get(PRIMARY[config.task]),
                **{m: r["test"][m] for m in SUMMARISED[config.task]},
            }
            for r in records
        ],
        "summary": {m: s.to_dict() for m, s in summary.items()},
    }
    atomic_write_text(run_file, _dump(payload))
    return RunResult(output_dir, config, tuple(records), summary)


def load_run(output_dir) -> dict:
    """The ``run.json`` of a finished run; an unfinished or foreign directory is an error naming it."""
    path = Path(output_dir) / RUN_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{output_dir}: no {RUN_FILE}; the run is missing or did not finish")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc}") from exc
    if data.get("format") != "tokstudy-finetune-run/1":
        raise ValueError(f"{path}: not a fine-tuning run file (format {data.get('format')!r})")
    return data
