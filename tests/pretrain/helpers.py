"""Small helpers shared by the pre-trainer's tests (kept out of conftest so tests import them explicitly)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
import yaml

from tests.conftest import PROJECT_ROOT

# Variables a launcher sets for its children: a test that starts its own must not inherit them.
LAUNCHER_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK")


def free_port() -> int:
    """A TCP port that is free now on IPv4 and IPv6 (for a rendezvous): the engine's own choice."""
    from pretrain.distributed_env import free_port as engine_free_port

    return engine_free_port()


def subprocess_env() -> dict[str, str]:
    """The environment for a ``pretrain train`` child process: no inherited launcher variables, one
    thread per process (several run on few cores), this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARIABLES}
    env.update(OMP_NUM_THREADS="1", PYTHONPATH=str(PROJECT_ROOT))
    return env


def tiny_train_args(cfg, cfg_file: Path, store_dir: Path, tokenizer_dir: Path, out: Path, *, model=None) -> list[str]:
    """Arguments of ``pretrain train`` with ``cfg`` (a ``TrainConfig``, written to ``cfg_file``) for the tiny model,
    or for ``model`` (a ``ModelConfig``, written beside ``cfg_file``)."""
    cfg_file.write_text(yaml.safe_dump(cfg.to_dict()))
    model_arg = "tiny"
    if model is not None:
        model_file = cfg_file.with_name(f"model_{cfg_file.stem}.yaml")
        model_file.write_text(yaml.safe_dump(model.to_dict()))
        model_arg = str(model_file)
    return [
        "--model",
        model_arg,
        "--train-config",
        str(cfg_file),
        "--data",
        str(store_dir),
        "--tokenizer",
        str(tokenizer_dir),
        "--output",
        str(out),
        "--no-progress",
    ]


def torchrun_train(
    nproc: int, cfg, tmp_path: Path, store_dir: Path, tokenizer_dir: Path, out: Path, *, model=None
) -> subprocess.CompletedProcess:
    """``torchrun --nproc_per_node nproc -m pretrain train`` (one agent, gloo on 127.0.0.1) of the tiny model or of
    ``model`` (a ``ModelConfig``) with ``cfg`` (a ``TrainConfig``) into ``out``."""
    args = tiny_train_args(cfg, tmp_path / f"train_{out.name}.yaml", store_dir, tokenizer_dir, out, model=model)
    launcher = ["--nproc_per_node", str(nproc), "--master_addr", "127.0.0.1", "--master_port", str(free_port())]
    cmd = [sys.executable, "-m", "torch.distributed.run", *launcher, "-m", "pretrain", "train", *args]
    return subprocess.run(cmd, env=subprocess_env(), cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)


def final_weights(run_dir: Path) -> dict[str, torch.Tensor]:
    """The exported model's weights (``final_model/model.safetensors``) of a finished run."""
    from safetensors.torch import load_file

    return load_file(str(Path(run_dir) / "final_model" / "model.safetensors"))


def assert_same_weights(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor], *, rtol: float, atol: float) -> None:
    assert a.keys() == b.keys()
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=rtol, atol=atol, msg=lambda m, k=key: f"{k}: {m}")


def mlm_accuracy(model, store, indices: np.ndarray, batch: int = 64) -> float:
    """Masked-token accuracy of an ``AlbertForPreTraining`` on store examples (HF forward, dense labels)."""
    from pretrain.model import hf_labels

    model.eval()
    correct = total = 0
    with torch.no_grad():
        for start in range(0, len(indices), batch):
            b = {k: torch.from_numpy(v) for k, v in store.get_batch(indices[start : start + batch]).items()}
            labels = hf_labels(b["mlm_positions"], b["mlm_labels"], b["input_ids"].shape[1])
            logits = model(
                input_ids=b["input_ids"], attention_mask=b["attention_mask"], token_type_ids=b["token_type_ids"]
            ).prediction_logits
            mask = labels != -100
            correct += int((logits.argmax(-1)[mask] == labels[mask]).sum())
            total += int(mask.sum())
    return correct / total
