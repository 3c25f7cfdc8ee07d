"""The study's pre-training uses the bf16 GPU DeepSpeed config on a GPU (per-tensor LAMB, autocast), ds_cpu.json
on CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from pretrain.study_backend import pretrain_train_config
from tokstudy.study.config import CONFIG_DIR, load_study_config


@pytest.mark.parametrize("name", ["gpu", "gpu-smoke", "gpu-check"])
def test_gpu_studies_train_with_the_bf16_gpu_config(name, tmp_path):
    from pretrain.engine import build_ds_config
    from pretrain.optim import choose_optimizer

    path = CONFIG_DIR / f"{name}.yaml"
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    sec = load_study_config(path).pretrain
    cfg = pretrain_train_config(sec, tmp_path, cuda=True)
    assert cfg.deepspeed_config == "ds_gpu_bf16.json" and cfg.autocast_bf16 and cfg.compile == sec.compile
    assert choose_optimizer(cfg, build_ds_config(cfg, world_size=1), cuda=True) == "lamb"
    assert cfg.batch_size == sec.batch_size and cfg.total_steps == sec.total_steps


def test_cpu_keeps_the_cpu_config(tmp_path):
    sec = load_study_config("cpu").pretrain
    assert pretrain_train_config(sec, Path(tmp_path), cuda=False).deepspeed_config == "ds_cpu.json"


def test_the_study_compile_setting_reaches_the_pre_trainer(tmp_path):
    from pretrain.config import COMPILE_MODES
    from tokstudy.study import config as study_config

    assert study_config.COMPILE_MODES is COMPILE_MODES  # one vocabulary, defined below both
    sec = load_study_config("gpu-check").pretrain
    assert sec.compile == "off"  # a short run: compiling ALBERT-base took longer than its 150 steps
    assert pretrain_train_config(sec, Path(tmp_path), cuda=True).compile == "off"
    assert study_config.PretrainSection(compile=True).compile == "on"  # YAML's bare on
    with pytest.raises(ValueError, match="pretrain.compile"):
        study_config.PretrainSection(compile="sometimes")
