"""Small helpers shared by the pre-trainer's tests (kept out of conftest so tests import them explicitly)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch


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
