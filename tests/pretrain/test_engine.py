"""The engine's choices: which DeepSpeed JSON a name means, which optimizer it picks, and that every
shipped JSON builds an engine with every optimizer the engine can choose for it (and takes a step)."""

from __future__ import annotations

import json

import pytest

from pretrain.config import CONFIG_DIR, OPTIMIZERS, ModelConfig, TrainConfig
from pretrain.engine import build_ds_config
from pretrain.optim import choose_optimizer, flattens_parameters

SHIPPED_DS = sorted(p.name for p in CONFIG_DIR.glob("ds_*.json"))


def test_a_bare_name_is_only_looked_up_in_the_shipped_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ds_gpu_bf16.json").write_text(json.dumps({"zero_optimization": {"stage": 3}}))
    assert TrainConfig(deepspeed_config="ds_gpu_bf16.json").deepspeed_config_path() == CONFIG_DIR / "ds_gpu_bf16.json"
    # With a directory part it is the user's file.
    assert (
        TrainConfig(deepspeed_config="./ds_gpu_bf16.json").deepspeed_config_path().resolve()
        == (tmp_path / "ds_gpu_bf16.json").resolve()
    )
    (tmp_path / "mine.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"not a shipped config.*\./mine\.json"):
        TrainConfig(deepspeed_config="mine.json").deepspeed_config_path()
    with pytest.raises(FileNotFoundError, match="not found"):
        TrainConfig(deepspeed_config=str(tmp_path / "absent.json")).deepspeed_config_path()


@pytest.mark.parametrize("name", SHIPPED_DS)
@pytest.mark.parametrize("cuda", [False, True], ids=["cpu", "cuda"])
@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_every_shipped_json_accepts_every_optimizer(name, cuda, optimizer):
    config = build_ds_config(TrainConfig(deepspeed_config=name, batch_size=8), world_size=1)
    assert not flattens_parameters(config), f"{name}: a shipped JSON must keep LAMB per tensor"
    choice = choose_optimizer(TrainConfig(optimizer=optimizer), config, cuda=cuda)
    expected = {"auto": "lamb" if cuda else "adamw"}.get(optimizer, optimizer)
    assert choice == expected


def test_gpu_json_uses_bf16_autocast_with_fp32_master_weights():
    config = json.loads((CONFIG_DIR / "ds_gpu_bf16.json").read_text())
    assert config["zero_optimization"]["stage"] == 0 and not config["bf16"]["enabled"]
    assert TrainConfig.load(CONFIG_DIR / "train_base.yaml").autocast_bf16
    assert TrainConfig.load(CONFIG_DIR / "train_base.yaml").deepspeed_config == "ds_gpu_bf16.json"


@pytest.mark.parametrize(
    "json_config",
    [
        {"zero_optimization": {"stage": 1}},
        {"zero_optimization": {"stage": 0}, "bf16": {"enabled": True}},
        {"zero_optimization": {"stage": 2}, "fp16": {"enabled": True}},
    ],
    ids=["zero1", "ds-bf16", "zero2-fp16"],
)
def test_lamb_refuses_flattened_groups_and_auto_falls_back(json_config):
    assert flattens_parameters(json_config)
    with pytest.raises(ValueError, match="per tensor|flatten"):
        choose_optimizer(TrainConfig(optimizer="lamb"), json_config, cuda=True, where="my.json")
    assert choose_optimizer(TrainConfig(optimizer="auto"), json_config, cuda=True) == "adamw"
    with pytest.raises(ValueError, match="my.json.*per tensor"):
        choose_optimizer(TrainConfig(), {**json_config, "optimizer": {"type": "Lamb"}}, cuda=True, where="my.json")
    assert (
        choose_optimizer(TrainConfig(), {**json_config, "optimizer": {"type": "AdamW"}}, cuda=True) == "deepspeed-json"
    )


def _choices(name: str) -> list[str]:
    config = build_ds_config(TrainConfig(deepspeed_config=name, batch_size=8), world_size=1)
    return sorted(
        {choose_optimizer(TrainConfig(optimizer=o), config, cuda=c) for o in OPTIMIZERS for c in (False, True)}
    )


@pytest.mark.parametrize("name,choice", [(n, c) for n in SHIPPED_DS for c in _choices(n)])
def test_every_shipped_json_builds_an_engine_and_steps(name, choice, store):
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    cfg = TrainConfig(batch_size=8, total_steps=4, deepspeed_config=name, optimizer=choice, compile="off")
    engine = PretrainEngine(
        AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)), cfg
    )
    assert engine.optimizer_name == choice
    stats = engine.step([store.get_batch(range(8))], step=0)
    engine.check_finite()
    assert stats.sequences == 8 and stats.loss > 0


def test_json_named_optimizer_builds(tmp_path, store):
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    ds = tmp_path / "ds_adam.json"
    ds.write_text(
        json.dumps({"zero_optimization": {"stage": 0}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}}})
    )
    cfg = TrainConfig(batch_size=8, total_steps=4, deepspeed_config=str(ds))
    engine = PretrainEngine(
        AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)), cfg
    )
    assert engine.optimizer_name == "deepspeed-json"
    assert engine.step([store.get_batch(range(8))], step=0).loss > 0
