"""The study's bridge to the torch side (:mod:`pretrain`): pre-train + export, and fine-tune.

Imported only inside the pre-training and fine-tuning stages, so ``tokstudy`` itself
never imports torch. Each function maps the study's config sections onto the
pre-trainer's and fine-tuner's own typed configs, and returns plain paths and numbers.
"""

from __future__ import annotations

from pathlib import Path

from tokstudy.data.types import Dataset
from tokstudy.study.config import FinetuneSection, PretrainSection, TaskSpec


def pretrain_model(
    work: Path, tokenizer_dir: Path, raw_files: list[Path], sec: PretrainSection, *, progress: bool = True
) -> Path:
    """prepare -> train (resuming from the last checkpoint in ``work``) -> Hugging Face export.

    Returns the exported model directory (an ordinary ``AlbertForPreTraining``).
    """
    from pretrain.config import ModelConfig
    from pretrain.data.config import PrepareConfig
    from pretrain.data.prepare import prepare
    from pretrain.train import train

    store = work / "examples"
    prepare(
        PrepareConfig(
            inputs=[str(f) for f in raw_files],
            tokenizer=str(tokenizer_dir),
            output=str(store),
            max_seq_length=sec.max_seq_length,
            seed=sec.seed,
            max_examples=sec.max_examples,
        ),
        progress=progress,
    )
    import torch

    train_cfg = pretrain_train_config(sec, work / "run", cuda=torch.cuda.is_available())
    result = train(
        ModelConfig.load(sec.model),
        train_cfg,
        data=store,
        tokenizer=tokenizer_dir,
        output=work / "run",
        resume=True,
        progress=progress,
    )
    if result.final_model_dir is None:
        raise RuntimeError(f"pre-training in {work / 'run'} stopped at step {result.step} of {sec.steps}")
    return Path(result.final_model_dir)


def pretrain_train_config(sec: PretrainSection, output: Path, *, cuda: bool):
    """The pre-trainer's ``TrainConfig`` for the study's section: on a GPU the bf16 GPU DeepSpeed config
    (``ds_gpu_bf16.json``: per-tensor LAMB, bf16 autocast, compiled model), on CPU ``ds_cpu.json``."""
    from pretrain.config import TrainConfig

    return TrainConfig(
        batch_size=sec.batch_size,
        lr=sec.learning_rate,
        warmup_steps=sec.warmup_steps,
        total_steps=sec.steps,
        seed=sec.seed,
        checkpoint_every=max(10, sec.steps // 5),
        keep_last=2,
        log_every=max(1, sec.steps // 20),
        output_dir=str(output),
        deepspeed_config="ds_gpu_bf16.json" if cuda else "ds_cpu.json",
    )


def finetune_run(
    work: Path,
    model_dir: Path,
    task: TaskSpec,
    train: Dataset,
    dev: Dataset,
    test: Dataset,
    seed: int,
    sec: FinetuneSection,
    *,
    progress: bool = True,
) -> dict:
    """Fine-tune ``model_dir`` on one task with one seed; returns the test score and the predictions path."""
    from pretrain.finetune.config import FinetuneConfig
    from pretrain.finetune.data import holdout, prepare_task
    from pretrain.finetune.run import finetune

    if task.dataset.startswith("sst2"):  # SST-2's test labels are not public: its dev is the test set
        train, dev = holdout(train, 0.05, 0)
    cfg = FinetuneConfig(
        model=str(model_dir),
        task=task.task,
        dataset=task.dataset,
        language=task.language,
        model_name=model_dir.parent.name,
        n_seeds=1,
        first_seed=seed,
        epochs=sec.epochs,
        batch_size=sec.batch_size,
        learning_rate=sec.learning_rate,
        patience=sec.patience,
        max_length=sec.max_length,
        stride=min(32, sec.max_length // 4),
        unseen_labels="map_o" if task.task == "ner" else "keep",
        save_models=False,
        progress=progress,
        max_eval_sentences=task.max_eval,
    )
    data = prepare_task(train, dev, test, task=task.task, unseen_labels=cfg.unseen_labels)
    result = finetune(cfg, work, data=data)
    record = result.seeds[0]
    metric = result.metric
    predictions = work / f"seed-{seed}" / "predictions.test.tsv"
    return {
        "metric": {"f1": "F1", "accuracy": "accuracy"}.get(metric, metric),
        "score": 100.0 * float(record["test"][metric]),
        "predictions": str(predictions) if task.task == "ner" and predictions.is_file() else None,
    }
