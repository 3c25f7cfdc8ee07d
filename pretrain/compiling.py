"""``torch.compile`` for the engine: whether to, compiling in place, going back to eager, dynamic sizes.

With ``TrainConfig.compile`` the module is compiled in place (``nn.Module.compile``: weights and checkpoints
keep their names), after ``torch.compiler.reset()`` so that each engine has dynamo's whole recompile
allowance. The engine tries the first step compiled; if compiling fails there, it calls
:func:`uncompile_module` and goes on eager with a warning.

>>> from pretrain.config import TrainConfig
>>> compile_wanted(TrainConfig(compile="auto"), cuda=False), compile_wanted(TrainConfig(compile="on"), cuda=False)
(False, True)
"""

from __future__ import annotations

import warnings

import torch

from pretrain.config import TrainConfig


def compile_module(module: torch.nn.Module, mode: str = "default") -> bool:
    """``module.compile(mode=mode)`` in place; False (with a warning saying why) where torch.compile is unavailable."""
    if not hasattr(torch, "compile") or not hasattr(module, "compile"):
        warnings.warn(
            "TrainConfig.compile: this torch has no torch.compile; training eager", RuntimeWarning, stacklevel=3
        )
        return False
    # dynamo allows a function 8 compiles, then silently runs it eager: every engine starts afresh (a new
    # vocabulary changes the embedding's shape, so a study's runs in one process would otherwise add up).
    torch.compiler.reset()
    try:
        module.compile(mode=mode)
    except Exception as exc:  # noqa: BLE001 - any failure to set up compile means "run eager"
        warnings.warn(
            f"TrainConfig.compile: torch.compile is unavailable ({type(exc).__name__}: {exc}); training eager",
            RuntimeWarning,
            stacklevel=3,
        )
        return False
    return True


def uncompile_module(module: torch.nn.Module) -> None:
    """Undo :func:`compile_module`: the module runs eager again, with the same weights."""
    module._compiled_call_impl = None  # what nn.Module.compile() set; __call__ goes eager again


#: The sizes that change from batch to batch: the longest example (T), the masked positions (P') and the real
#: tokens (N, with unpadding). Marked dynamic from the first step, so dynamo compiles one graph for them,
#: not a graph specialised to the first batch and a second, dynamic one at the next batch (one compile fewer,
#: counted on CPU; on an H200 the two took 55-63 s of ALBERT-base's warm-up, the saving there not yet measured).
_DYNAMIC_DIMS = {
    "input_ids": 1,
    "attention_mask": 1,
    "token_type_ids": 1,
    "mlm_positions": 1,
    "mlm_labels": 1,
    "unpad_rows": 0,
    "unpad_slot": 0,
}


def mark_dynamic(batch: dict[str, torch.Tensor | None]) -> None:
    """Mark the sizes of :data:`_DYNAMIC_DIMS` dynamic in one micro-batch on the device."""
    for key, dim in _DYNAMIC_DIMS.items():
        if batch.get(key) is not None:
            torch._dynamo.maybe_mark_dynamic(batch[key], dim)


def compile_wanted(train: TrainConfig, *, cuda: bool) -> bool:
    """Whether ``train.compile`` asks for ``torch.compile`` on this device (``auto``: on CUDA only)."""
    return train.compile == "on" or (train.compile == "auto" and cuda)
