"""The one-lease study's configuration (``gpu-lease.yaml``): the paper's vocabularies, ALBERT-base, one NER task,
and sizes that the lease's plan (benchmarks/gpu_lease.py) fits into 9 minutes."""

from __future__ import annotations

import sys
from pathlib import Path

from tokstudy.study.config import load_study_config

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_lease  # noqa: E402 (a script module of benchmarks/)


def test_the_lease_study_is_the_papers_setting_sized_for_one_lease():
    cfg = load_study_config("gpu-lease")
    assert cfg.tokenizers.vocab_sizes == (32000, 64000, 128000) and cfg.tokenizers.algorithm == "sp-unigram"
    assert cfg.pretrain.model == "base" and cfg.pretrain.compile == "off"
    assert [(t.dataset, t.task) for t in cfg.finetune.tasks] == [("conll2003", "ner")]
    assert cfg.finetune.patience >= 1 and cfg.finetune.seeds == 1  # early stopping on dev, one run a vocabulary
    assert cfg.pretrain.max_seq_length <= cfg.finetune.max_length
    # every store example is seen at least once, and the steps make the five checkpoints the curve fine-tunes
    assert cfg.pretrain.total_steps * cfg.pretrain.batch_size >= cfg.pretrain.max_examples
    steps = cfg.pretrain.total_steps
    assert steps % 5 == 0 and (steps // 5) % max(1, steps // 20) == 0
    assert cfg.analysis.datasets[0] == "conll2003:test"


def test_the_plan_of_the_shipped_file_leaves_time_for_the_curve():
    import yaml

    planned = gpu_lease.plan(yaml.safe_load((ROOT / "tokstudy/study/configs/gpu-lease.yaml").read_text()))
    assert sum(planned.values()) + gpu_lease.CURVE_POINT_SECONDS <= gpu_lease.LEASE_SECONDS - gpu_lease.RESERVE_SECONDS
