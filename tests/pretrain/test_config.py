"""Configs: every shipped file loads and validates; presets match the ALBERT paper; bad values name the field."""

from __future__ import annotations

import json

import pytest

from pretrain.config import CONFIG_DIR, MODEL_PRESETS, ModelConfig, TrainConfig, load_mapping
from pretrain.ds_config import build_ds_config

SHIPPED = sorted(p for p in CONFIG_DIR.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def test_configs_are_shipped():
    names = {p.name for p in SHIPPED}
    assert {f"model_{n}.yaml" for n in MODEL_PRESETS} <= names
    assert {"train_tiny.yaml", "ds_cpu.json", "ds_gpu_bf16.json"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_loads(path):
    data = load_mapping(path)
    if path.name.startswith("model_"):
        cfg = ModelConfig.load(path)
        assert cfg == ModelConfig.preset(path.stem.removeprefix("model_")), "YAML and preset disagree"
    elif path.name.startswith("train_"):
        cfg = TrainConfig.load(path)
        assert cfg.deepspeed_config_path().is_file()
        assert build_ds_config(cfg, world_size=1)["train_batch_size"] == cfg.batch_size
    elif path.name.startswith("ds_"):
        assert "zero_optimization" in data
        build_ds_config(TrainConfig(deepspeed_config=str(path), batch_size=8), world_size=2)
    elif path.name.startswith("prepare_"):
        from pretrain.data.config import PrepareConfig  # `pretrain prepare`'s config

        PrepareConfig.from_yaml(path)
    elif path.name.startswith("finetune_"):
        from pretrain.finetune.config import FinetuneConfig  # `pretrain finetune`'s config

        FinetuneConfig.from_yaml(path, model=data.get("model") or "a-model-dir")  # the model is a flag
    else:
        pytest.fail(f"{path.name}: no test knows this kind of config; add it here")


def test_paper_sizes():
    base = ModelConfig.preset("base")
    assert (base.embedding_size, base.hidden_size, base.num_layers, base.num_heads, base.intermediate_size) == (
        128,
        768,
        12,
        12,
        3072,
    )
    assert [MODEL_PRESETS[n].hidden_size for n in ("large", "xlarge", "xxlarge")] == [1024, 2048, 4096]
    assert all(c.sharing == "all" and c.dropout == 0.0 for c in MODEL_PRESETS.values())
    assert TrainConfig().lr == 3.125e-4 and TrainConfig().batch_size == 128


def test_base_parameter_count_matches_albert_paper():
    """ALBERT-base with a 30k vocabulary has 12M parameters (paper, table 1)."""
    from pretrain.model import build_model

    n = sum(p.numel() for p in build_model(ModelConfig.preset("base"), vocab_size=30000, seed=0).parameters())
    assert 11.5e6 < n < 12.5e6, n


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"num_heads": 5}, "num_heads"),
        ({"sharing": "some"}, "sharing"),
        ({"sharing": "groups", "num_layers": 4, "num_groups": 3}, "num_groups"),
        ({"dropout": 1.0}, "dropout"),
        ({"hidden_size": 0}, "hidden_size"),
    ],
)
def test_model_validation_names_the_field(changes, field):
    with pytest.raises(ValueError, match=field):
        ModelConfig(**changes)


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"batch_size": 10, "micro_batch_size": 3}, "micro_batch_size"),
        ({"warmup_steps": 200}, "warmup_steps"),
        ({"optimizer": "sgd"}, "optimizer"),
        ({"lr": 0}, "lr"),
        ({"keep_last": 0}, "keep_last"),
        ({"unpad": "sometimes"}, "unpad"),
        ({"attention_kernel": "fa3"}, "attention_kernel"),
        ({"compile_mode": "fast"}, "compile_mode"),
    ],
)
def test_train_validation_names_the_field(changes, field):
    with pytest.raises(ValueError, match=field):
        TrainConfig(**changes)


def test_unknown_yaml_field_names_the_file(tmp_path):
    bad = tmp_path / "m.yaml"
    bad.write_text("hidden_size: 64\nnum_heads: 2\nhiden_layers: 3\n")
    with pytest.raises(ValueError, match=r"m\.yaml.*hiden_layers"):
        ModelConfig.load(bad)


def test_batch_layout_and_deepspeed_conflicts(tmp_path):
    cfg = TrainConfig(batch_size=32, micro_batch_size=4)
    assert cfg.batch_layout(1) == (4, 8) and cfg.batch_layout(2) == (4, 4)
    assert TrainConfig(batch_size=32).batch_layout(2) == (16, 1)
    with pytest.raises(ValueError, match="multiple"):
        TrainConfig(batch_size=32, micro_batch_size=32).batch_layout(2)
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps({"train_batch_size": 64, "zero_optimization": {"stage": 0}}))
    with pytest.raises(ValueError, match="train_batch_size"):
        build_ds_config(TrainConfig(batch_size=32, deepspeed_config=str(ds)), world_size=1)
    ds.write_text(json.dumps({"scheduler": {"type": "WarmupLR"}}))
    with pytest.raises(ValueError, match="scheduler"):
        build_ds_config(TrainConfig(deepspeed_config=str(ds)), world_size=1)
