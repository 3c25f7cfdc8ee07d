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
    import torch

    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    # ``torch_adam``: DeepSpeed builds torch's AdamW from the JSON. Without it, DeepSpeed's own CPU Adam is a
    # C++ op compiled just-in-time (about 70 s on 2 cores on a machine that never built it); what is tested
    # here, the engine handing the JSON's optimizer to DeepSpeed and stepping it, is the same for both.
    ds = tmp_path / "ds_adam.json"
    ds.write_text(
        json.dumps(
            {
                "zero_optimization": {"stage": 0},
                "optimizer": {"type": "AdamW", "params": {"lr": 1e-3, "torch_adam": True}},
            }
        )
    )
    cfg = TrainConfig(batch_size=8, total_steps=4, deepspeed_config=str(ds))
    engine = PretrainEngine(
        AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)), cfg
    )
    assert engine.optimizer_name == "deepspeed-json"
    assert isinstance(engine.engine.basic_optimizer, torch.optim.AdamW)
    assert engine.step([store.get_batch(range(8))], step=0).loss > 0


# -- a step that never waits for the device (issue: the pre-trainer meets its GPU) ---------------------


@pytest.mark.parametrize("name", SHIPPED_DS)
def test_deepspeeds_throughput_timer_is_off_unless_the_json_turns_it_on(name, tmp_path):
    """DeepSpeed's throughput timer synchronises the device twice a step; our loop measures itself."""
    config = build_ds_config(TrainConfig(deepspeed_config=name, batch_size=8), world_size=1)
    assert config["timers"]["throughput"]["enabled"] is False
    mine = tmp_path / "timed.json"
    mine.write_text(json.dumps({"timers": {"throughput": {"enabled": True}}}))
    assert build_ds_config(TrainConfig(deepspeed_config=str(mine), batch_size=8), world_size=1)["timers"]["throughput"][
        "enabled"
    ]


@pytest.mark.parametrize(
    "json_config,ours",
    [
        ({"zero_optimization": {"stage": 0}, "gradient_clipping": 0.5}, 0.5),
        ({"zero_optimization": {"stage": 0}}, 1.0),  # DeepSpeed's own default, then applied by the engine
        ({"zero_optimization": {"stage": 0}, "gradient_clipping": 0}, None),
        ({"zero_optimization": {"stage": 1}, "gradient_clipping": 0.5}, None),
        ({"zero_optimization": {"stage": 0}, "bf16": {"enabled": True}, "gradient_clipping": 0.5}, None),
    ],
    ids=["zero0", "deepspeed-default", "no-clipping", "zero1", "ds-bf16"],
)
def test_the_engine_clips_where_deepspeed_would_clip_the_tensors(json_config, ours):
    from deepspeed.runtime.config import DeepSpeedConfig

    from pretrain.engine import take_gradient_clipping

    config = json.loads(json.dumps(json_config))
    assert take_gradient_clipping(config) == ours
    if ours is not None:  # DeepSpeed itself must not clip again (its default, absent a key, is 1.0)
        assert DeepSpeedConfig({**config, "train_batch_size": 1}).gradient_clipping == 0
    else:
        assert config == json_config


def test_clipping_in_our_step_equals_deepspeeds(tmp_path, store, monkeypatch):
    """Weights after 3 steps with a clip that binds every step: the engine's clipping == DeepSpeed's."""
    import torch

    import pretrain.engine as engine_module
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    ds = tmp_path / "ds_clip.json"
    ds.write_text(json.dumps({"zero_optimization": {"stage": 0}, "gradient_clipping": 0.05}))
    cfg = TrainConfig(batch_size=8, micro_batch_size=4, total_steps=10, warmup_steps=0, lr=1e-3)
    cfg = cfg.replace(deepspeed_config=str(ds), compile="off", optimizer="adamw")
    batches = [store.get_batch(range(8 * i, 8 * i + 8)) for i in range(3)]

    def run() -> tuple[PretrainEngine, dict]:
        engine = PretrainEngine(
            AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)), cfg
        )
        for i, b in enumerate(batches):
            halves = [{k: v[:4] for k, v in b.items()}, {k: v[4:] for k, v in b.items()}]
            engine.step(halves, step=i)
        return engine, {n: p.detach().clone() for n, p in engine.module.model.named_parameters()}

    ours, ours_weights = run()
    assert ours.clip_norm == 0.05 and ours.engine.gradient_clipping() == 0
    monkeypatch.setattr(engine_module, "take_gradient_clipping", lambda config: None)
    theirs, their_weights = run()
    assert theirs.clip_norm is None and theirs.engine.gradient_clipping() == 0.05
    start = dict(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0).named_parameters())
    moved = 0
    for name, w in ours_weights.items():
        torch.testing.assert_close(w, their_weights[name], rtol=1e-6, atol=1e-7, msg=name)
        moved += not torch.equal(w, start[name].detach())
    assert moved > 10
    # And the clip binds: without it the same run moves the weights elsewhere.
    ds.write_text(json.dumps({"zero_optimization": {"stage": 0}}))
    _, free_weights = run()
    assert any(not torch.allclose(free_weights[n], ours_weights[n]) for n in ours_weights)


def test_a_batch_without_padding_reaches_the_module_without_a_mask(store):
    """So SDPA can take FlashAttention (a boolean mask rules it out), and Hugging Face's all-ones check is skipped."""
    import numpy as np

    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model
    from pretrain.unpad import UNPAD_KEYS

    engine = PretrainEngine(
        AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)),
        TrainConfig(batch_size=4, total_steps=4, compile="off"),
    )
    lengths = np.asarray(store.lengths)
    full = store.get_batch(np.flatnonzero(lengths == lengths.max())[:4])
    mixed = store.get_batch(np.concatenate([np.flatnonzero(lengths == lengths.max())[:3], [lengths.argmin()]]))
    assert engine._layout(full)["attention_mask"] is None and not set(UNPAD_KEYS) & set(engine._layout(full))
    assert set(UNPAD_KEYS) <= set(engine._layout(mixed)) and engine._layout(mixed)["attention_mask"] is not None
    seen = []
    engine.module.register_forward_pre_hook(lambda m, a, kw: seen.append(kw.get("attention_mask")), with_kwargs=True)
    engine.step([full], step=0)
    engine.step([mixed], step=1)
    assert seen[0] is None and seen[1] is not None


def test_without_a_mask_the_loss_equals_the_all_ones_mask(store):
    import numpy as np
    import torch

    from pretrain.model import AlbertPretrainingModule, build_model

    module = AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)).eval()
    lengths = np.asarray(store.lengths)
    batch = {k: torch.from_numpy(v) for k, v in store.get_batch(np.flatnonzero(lengths == lengths.max())[:4]).items()}
    assert bool(batch["attention_mask"].all())
    with torch.no_grad():
        masked = module(**batch)
        unmasked = module(**{**batch, "attention_mask": None})
    for key in ("loss", "mlm_loss_sum", "sop_loss_sum"):
        torch.testing.assert_close(unmasked[key], masked[key], rtol=1e-6, atol=1e-6)


def test_every_compiled_engine_starts_with_a_fresh_compiler(store, monkeypatch):
    """dynamo allows 8 compiles of a function, then runs it eager without a word: each engine resets it."""
    import torch

    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model

    resets = []
    monkeypatch.setattr(torch.compiler, "reset", lambda: resets.append(1))
    for vocab_extra in (0, 7, 13):  # a study's vocabularies: each changes the embedding shape
        model = build_model(ModelConfig(), vocab_size=store.vocab_size + vocab_extra, seed=0)
        engine = PretrainEngine(AlbertPretrainingModule(model), TrainConfig(batch_size=4, compile="on"))
        assert engine.compiled
    assert len(resets) == 3
    PretrainEngine(AlbertPretrainingModule(model), TrainConfig(batch_size=4, compile="off"))
    assert len(resets) == 3


def test_the_rendezvous_port_is_free_on_ipv4_and_ipv6():
    """torch's TCPStore listens on every address: a port taken on IPv6 alone must never be chosen."""
    import socket

    from pretrain.distributed_env import free_port

    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    held = []
    try:
        for _ in range(300):  # ports other processes hold on IPv6 only
            s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind(("::", 0))
            s.listen()
            held.append(s)
        taken = {s.getsockname()[1] for s in held}
        chosen = [free_port() for _ in range(300)]
        assert not taken & set(chosen)
        with socket.socket() as v4, socket.socket(socket.AF_INET6) as v6:  # and the port binds on both
            v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            v4.bind(("0.0.0.0", chosen[-1]))
            v6.bind(("::", chosen[-1]))
    finally:
        for s in held:
            s.close()


def test_a_cpu_engine_compiles_no_deepspeed_op(tmp_path, store_dir):
    """DeepSpeed's CPU backend would build its shared-memory inference all-reduce (a C++ op, about 30 s on
    2 cores on a fresh machine) as the engine starts; training never uses it, so it is not built."""
    import os
    import subprocess
    import sys

    script = f"""
from pretrain.config import ModelConfig, TrainConfig
from pretrain.data.store import ExampleStore
from pretrain.engine import PretrainEngine
from pretrain.model import AlbertPretrainingModule, build_model
store = ExampleStore({str(store_dir)!r})
engine = PretrainEngine(
    AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=store.vocab_size, seed=0)),
    TrainConfig(batch_size=8, total_steps=2, compile="off"),
)
print("loss", engine.step([store.get_batch(range(8))], step=0).loss)
"""
    extensions = tmp_path / "torch_extensions"
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_PORT")}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env=env | {"TORCH_EXTENSIONS_DIR": str(extensions)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "loss" in proc.stdout
    assert "built successfully" not in proc.stdout + proc.stderr
    assert not extensions.exists() or not any(extensions.iterdir())
