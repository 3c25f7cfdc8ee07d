"""Export a training checkpoint as a standard Hugging Face ALBERT directory.

The result holds ``config.json`` (``AlbertForPreTraining``), ``model.safetensors`` (float32) and the
tokenizer's files, and loads with ``AutoModelForPreTraining``, ``AutoModelForMaskedLM``,
``AutoModelForTokenClassification`` and ``transformers.pipeline("fill-mask", model=dir)``.

>>> export_checkpoint("runs/tiny", "models/tiny-hf")      # doctest: +SKIP
PosixPath('models/tiny-hf')
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Mapping

from pretrain.checkpoint import CheckpointManager, CorruptCheckpointError, read_state, verify
from pretrain.config import ModelConfig
from pretrain.tokenizer_info import TOKENIZER_FILES, check_same_vocabulary, tokenizer_info
from tokstudy.fileio import atomic_folder


def save_hf_model(
    hf_config,
    state_dict: Mapping[str, Any],
    directory: str | os.PathLike,
    *,
    tokenizer_dir: str | os.PathLike | None = None,
) -> Path:
    """Write an ``AlbertForPreTraining`` with ``state_dict`` (+ tokenizer files) to ``directory`` atomically."""
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    import torch
    from transformers import AlbertForPreTraining

    directory = Path(directory)
    if tokenizer_dir is not None:
        check_same_vocabulary(
            {"vocab_size": hf_config.vocab_size},
            tokenizer_info(tokenizer_dir),
            a_name="the model",
            b_name=f"tokenizer {tokenizer_dir}",
        )
    model = AlbertForPreTraining(hf_config)
    missing, unexpected = model.load_state_dict(dict(state_dict), strict=False)
    tied = {"predictions.decoder.weight", "predictions.decoder.bias"}
    if set(missing) - tied or unexpected:
        raise ValueError(
            f"checkpoint weights do not fit the model: missing {sorted(set(missing) - tied)}, "
            f"unexpected {sorted(unexpected)}"
        )
    model.tie_weights()
    model.to(torch.float32)
    with atomic_folder(directory) as tmp:
        model.save_pretrained(str(tmp), safe_serialization=True)
        if tokenizer_dir is not None:
            for name in TOKENIZER_FILES:
                if (Path(tokenizer_dir) / name).is_file():
                    shutil.copy2(Path(tokenizer_dir) / name, tmp / name)
    return directory


def resolve_checkpoint(path: str | os.PathLike) -> Path:
    """A step directory from a run directory, its ``checkpoints/`` directory, or a step directory itself.

    Run and checkpoints directories resolve to their newest checkpoint that verifies.
    """
    path = Path(path)
    if (path / "trainer_state.json").is_file():
        return path
    root = path / "checkpoints" if (path / "checkpoints").is_dir() else path
    found = CheckpointManager(root, keep_last=1).latest_valid()
    if found is None:
        raise FileNotFoundError(f"{path}: no complete, intact checkpoint found")
    return found[0]


def load_checkpoint_weights(step_dir: Path, state: Mapping[str, Any]) -> dict[str, Any]:
    """The Hugging Face model's float32 weights from a checkpoint's DeepSpeed files (no engine needed)."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    ds_dir = step_dir / "ds"
    if int(state.get("zero_stage", 0)) > 0:
        # deferred: deepspeed (~2 s), only when an engine is built or a ZeRO checkpoint read
        from deepspeed.utils.zero_to_fp32 import get_fp32_state_dict_from_zero_checkpoint

        module = get_fp32_state_dict_from_zero_checkpoint(str(step_dir), tag="ds")
    else:
        files = sorted(ds_dir.glob("mp_rank_*_model_states.pt"))
        if not files:
            raise CorruptCheckpointError(f"{ds_dir}: no mp_rank_*_model_states.pt")
        # Our own checkpoint (verified against its manifest): DeepSpeed stores non-tensor objects in it.
        module = torch.load(files[0], map_location="cpu", weights_only=False)["module"]
    prefix = "model."
    return {k[len(prefix) :]: v.float() for k, v in module.items() if k.startswith(prefix)}


def export_checkpoint(
    checkpoint: str | os.PathLike, output: str | os.PathLike, *, tokenizer_dir: str | os.PathLike | None = None
) -> Path:
    """Write the Hugging Face directory ``output`` from a checkpoint (see :func:`resolve_checkpoint`).

    ``tokenizer_dir`` defaults to the tokenizer recorded in the checkpoint; a tokenizer whose vocabulary
    differs from the checkpoint's is an error.
    """
    step_dir = resolve_checkpoint(checkpoint)
    verify(step_dir)
    state = read_state(step_dir)
    tokenizer_dir = Path(tokenizer_dir or state["tokenizer"]["path"])
    check_same_vocabulary(
        state["tokenizer"],
        tokenizer_info(tokenizer_dir),
        a_name=f"checkpoint {step_dir}",
        b_name=f"tokenizer {tokenizer_dir}",
    )
    model_config = ModelConfig.from_dict(state["model_config"], where=f"{step_dir}/trainer_state.json")
    hf_config = model_config.to_albert_config(
        vocab_size=state["tokenizer"]["vocab_size"], special_ids=state["tokenizer"].get("special_ids")
    )
    weights = load_checkpoint_weights(step_dir, state)
    return save_hf_model(hf_config, weights, output, tokenizer_dir=tokenizer_dir)
