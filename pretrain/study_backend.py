"""The pre-trainer as the study's trainer: :class:`PretrainBackend` fulfils the study's ``TrainerBackend``.

The arrow points down: this module imports the torch-free study's protocol (:mod:`tokstudy.study.backends`)
and config sections, never the other way round. Each method builds the pre-trainer's and fine-tuner's own typed
configs from the study's sections, whose settings carry the same names (:func:`shared_settings`), and returns the
protocol's plain dataclasses; what the pre-trainer
writes for itself (checkpoints, ``cost.json``, ``metrics.json``) is read here, not by the study.

``tokstudy study`` constructs it (:mod:`tokstudy.cli.study`, the one ``tokstudy`` module allowed to
import ``pretrain``); in Python::

    from pretrain.study_backend import PretrainBackend
    from tokstudy.study.config import load_study_config
    from tokstudy.study.pipeline import run_study
    run_study(load_study_config("demo"), backend=PretrainBackend())
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch

from pretrain.config import ModelConfig, TrainConfig
from pretrain.cost import COST_FILE, CostMeter, read_total
from pretrain.data.config import PrepareConfig
from pretrain.data.prepare import prepare
from pretrain.export import save_hf_model
from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.data import holdout, prepare_task
from pretrain.finetune.external import ExternalOptions, evaluate_external
from pretrain.finetune.label_mapping import read_label_map
from pretrain.finetune.run import PRIMARY, finetune
from pretrain.model import build_model
from pretrain.tokenizer_info import tokenizer_info
from pretrain.train import train
from tokstudy.data.registry import DatasetTask
from tokstudy.study.backends import EvaluateRequest, FinetunedRun, FinetuneRequest, PretrainedModel
from tokstudy.study.config import PretrainSection

#: Windows per prediction batch on a GPU (dev at every evaluation, then test): large batches keep the device busy and
#: the predictions come back in one copy (:mod:`pretrain.finetune.predict`); on CPU the fine-tuner's default.
EVAL_BATCH_GPU = 256
#: How the fine-tuner's metric keys are written in the study's tables.
_METRIC_NAMES = {"f1": "F1", "accuracy": "accuracy"}


class PretrainBackend:
    """Pre-training, the random-weights control and fine-tuning on this machine (a GPU when there is one)."""

    def __init__(self, *, cuda: bool | None = None):
        self.cuda = torch.cuda.is_available() if cuda is None else cuda
        """Train with the bf16 GPU DeepSpeed config (else the CPU one); default: whether CUDA is available."""

    def pretrain(
        self, work: Path, tokenizer_dir: Path, raw_files: list[Path], section: PretrainSection, *, progress: bool = True
    ) -> PretrainedModel:
        """prepare -> train (resuming from the last checkpoint in ``work``) -> Hugging Face export."""
        meter = CostMeter(track_energy=False)  # the fallback when the pre-trainer left no cost record
        store = work / "examples"
        prepare(
            PrepareConfig(
                inputs=[str(f) for f in raw_files],
                tokenizer=str(tokenizer_dir),
                output=str(store),
                # the study chose the raw files by language already (`languages: []` keeps all; the preparer's None)
                **shared_settings(PrepareConfig, section, leave=("languages",)),
            ),
            progress=progress,
        )
        result = train(
            ModelConfig.load(section.model),
            pretrain_train_config(section, work / "run", cuda=self.cuda),
            data=store,
            tokenizer=tokenizer_dir,
            output=work / "run",
            resume=True,
            progress=progress,
        )
        if result.final_model_dir is None:
            raise RuntimeError(f"pre-training in {work / 'run'} stopped at step {result.step} of {section.total_steps}")
        cost = read_total(work / "run" / COST_FILE) or meter.stop().to_dict()
        return PretrainedModel(Path(result.final_model_dir), cost)

    def untrained_model(self, work: Path, tokenizer_dir: Path, section: PretrainSection) -> Path:
        """The preset's initial weights drawn exactly as :meth:`pretrain` draws them, exported under ``work``."""
        tok = tokenizer_info(tokenizer_dir)
        model = build_model(
            ModelConfig.load(section.model_spec()),
            vocab_size=tok["vocab_size"],
            special_ids=tok["special_ids"],
            seed=section.seed,
        )
        return save_hf_model(model.config, model.state_dict(), work / "random_init", tokenizer_dir=tokenizer_dir)

    def finetune(self, work: Path, request: FinetuneRequest, *, progress: bool = True) -> FinetunedRun:
        """Fine-tune ``request.model_dir`` on one task with one seed; the test score, predictions and cost of that
        seed."""
        task, splits = request.task, request.splits
        cfg = self.finetune_config(request, progress=progress)
        train_split, dev = splits.train, splits.dev
        if dev is None:  # the corpus has no test split (SST-2, MultiCoNER): its dev split is the test set
            train_split, dev = holdout(train_split, cfg.holdout_fraction, cfg.holdout_seed)
        data = prepare_task(train_split, dev, splits.test, task=task.task, unseen_labels=cfg.unseen_labels)
        result = finetune(cfg, work, data=data)
        record = result.seeds[0]  # what the fine-tuner wrote to seed-<N>/metrics.json, cost included
        metric = result.metric
        predictions = work / f"seed-{request.seed}" / "predictions.test.tsv"
        dev_score = record.get("dev", {}).get(PRIMARY[task.task])
        return FinetunedRun(
            metric=_METRIC_NAMES.get(metric, metric),
            score=100.0 * float(record["test"][metric]),
            predictions=predictions if task.task is DatasetTask.NER and predictions.is_file() else None,
            dev_score=None if dev_score is None else 100.0 * float(dev_score),
            epochs_run=record.get("train", {}).get("epochs_run"),
            cost=record.get("cost"),
        )

    def evaluate(self, work: Path, request: EvaluateRequest, *, progress: bool = True) -> FinetunedRun:
        """Score a token-classification model fine-tuned elsewhere on the task's test split
        (:func:`pretrain.finetune.external.evaluate_external`): its labels mapped onto the dataset's tags by name
        or by ``request.label_map``; a gold tag no model label reaches is kept, a miss (the model is scored on the
        whole test split); windows of at most ``section.max_length`` pieces; argmax or Viterbi as
        ``section.decode`` says."""
        meter = CostMeter(track_energy=False)
        section, label_map = request.section, request.label_map
        options = ExternalOptions(
            viterbi=section.decode == "viterbi",
            label_map=read_label_map(label_map) if label_map else {},
            label_map_source=str(label_map) if label_map else None,
            max_length=section.max_length,
            unseen_labels="keep",
            progress=progress,
            batch_size=EVAL_BATCH_GPU if self.cuda else ExternalOptions.batch_size,
        )
        predictions = work / "predictions.test.tsv"
        result = evaluate_external(
            request.model_dir,
            request.splits.test,
            options=options,
            train=request.splits.train if options.viterbi else None,
            predictions=predictions,
        )
        return FinetunedRun(
            metric="F1", score=100.0 * float(result.metrics["f1"]), predictions=predictions, cost=meter.stop().to_dict()
        )

    def finetune_config(self, request: FinetuneRequest, *, progress: bool) -> FinetuneConfig:
        """The fine-tuner's config for one run: the section's settings under their shared names
        (:func:`shared_settings`), the task's, one seed, and what the study decides for every run."""
        task, section = request.task, request.section
        return FinetuneConfig(
            model=str(request.model_dir),
            task=task.task,
            dataset=task.dataset,
            language=task.language,
            model_name=request.model_dir.parent.name,
            n_seeds=1,
            first_seed=request.seed,
            **shared_settings(FinetuneConfig, section),
            piece_predictions=section.compare_labelling and task.task is DatasetTask.NER,  # beside predictions.test.tsv
            stride=min(32, section.max_length // 4),
            unseen_labels="map_o" if task.task is DatasetTask.NER else "keep",
            save_models=False,
            progress=progress,
            max_eval_sentences=task.max_eval,
            eval_batch_size=EVAL_BATCH_GPU if self.cuda else FinetuneConfig.eval_batch_size,
        )


def shared_settings(config_class: type, section: object, *, leave: tuple[str, ...] = ()) -> dict:
    """The settings of a study section that ``config_class`` (a pre-trainer's config) has under the same name, but
    those in ``leave``: the study spells them as the pre-trainer does (:class:`~tokstudy.study.config.PretrainSection`),
    so they are handed over by name, not mapped one by one.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Section:
    ...     lr: float = 0.1
    ...     corpora: tuple = ()
    >>> @dataclass
    ... class Trainer:
    ...     lr: float = 0.5
    ...     total_steps: int = 10
    >>> shared_settings(Trainer, Section())
    {'lr': 0.1}
    """
    names = {f.name for f in dataclasses.fields(section)} - set(leave)
    return {f.name: getattr(section, f.name) for f in dataclasses.fields(config_class) if f.name in names}


def pretrain_train_config(section: PretrainSection, output: Path, *, cuda: bool) -> TrainConfig:
    """The pre-trainer's ``TrainConfig`` for the study's section: on a GPU the bf16 GPU DeepSpeed config
    (``ds_gpu_bf16.json``: per-tensor LAMB, bf16 autocast; compiled as ``section.compile`` says, ``auto`` on
    CUDA), on CPU ``ds_cpu.json``. A checkpoint every fifth of the run, all five kept: the F1-against-minutes curve
    (``benchmarks/gpu_lease.py curve``) fine-tunes the intermediate ones."""
    return TrainConfig(
        **shared_settings(TrainConfig, section),
        checkpoint_every=max(10, section.total_steps // 5),
        keep_last=5,
        log_every=max(1, section.total_steps // 20),
        output_dir=str(output),
        deepspeed_config="ds_gpu_bf16.json" if cuda else "ds_cpu.json",
    )
