"""The fine-tuning step loop never reads a tensor back to the host between evaluations.

On a GPU every such read (``.item()``, ``.tolist()``, ``.cpu()``, ``float(t)``, ``if t:``) makes the host wait for
the device, so a loop that reads the loss every step runs at the speed of the round trip, not of the device. On
CPU the same reads can be counted: each reading method of ``torch.Tensor`` is wrapped, and a read is counted when
the fine-tuner's own code makes it (torch's CPU optimiser reads its step counters itself; on CUDA the fused AdamW
keeps them on the device). The GPU twin, with CUDA's sync debug mode, is in ``test_gpu.py``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from pretrain.finetune.trainer import train  # noqa: E402

READS = ("item", "tolist", "cpu", "numpy", "__float__", "__int__", "__bool__", "__index__")


@dataclass
class Item:
    input_ids: list[int]
    labels: list[int]

    def __len__(self) -> int:
        return len(self.input_ids)


class TinyTagger(torch.nn.Module):
    """Embedding -> linear -> cross-entropy over the labelled positions: enough to make the loop train."""

    def __init__(self, vocab: int = 50, labels: int = 3):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, 16)
        self.head = torch.nn.Linear(16, labels)

    def forward(self, input_ids, attention_mask, labels):
        logits = self.head(self.embed(input_ids))
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)
        return SimpleNamespace(loss=loss, logits=logits)


def _config(**overrides):
    base = dict(
        batch_size=4,
        epochs=2,
        evals_per_epoch=1,
        patience=0,
        learning_rate=1e-2,
        weight_decay=0.01,
        warmup_ratio=0.1,
        max_grad_norm=1.0,
        group_by_length=True,
        progress=False,
        token_dropout=0.1,
    )
    return SimpleNamespace(**{**base, **overrides})


def _items(n: int = 40) -> list[Item]:
    g = torch.Generator().manual_seed(0)
    out = []
    for i in range(n):
        length = 3 + i % 7
        out.append(Item(torch.randint(5, 50, (length,), generator=g).tolist(), [i % 3] * length))
    return out


def _count_reads(monkeypatch, where: str) -> list[str]:
    """Wrap every reading method of ``torch.Tensor``; record the call sites inside files whose path holds ``where``."""
    sites: list[str] = []
    for name in READS:
        real = getattr(torch.Tensor, name)

        def wrapper(self, *args, _real=real, _name=name, **kwargs):
            caller = sys._getframe(1).f_code
            if where in caller.co_filename.replace("\\", "/"):
                sites.append(f"{caller.co_filename.rsplit('/', 1)[-1]}:{caller.co_name}:{_name}")
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(torch.Tensor, name, wrapper)
    return sites


def test_the_loop_reads_the_loss_once_per_evaluation_not_per_step(monkeypatch):
    items, evaluations = _items(), []

    def evaluate(model) -> float:
        evaluations.append(1)
        return 0.5 + 0.1 * len(evaluations)  # improving: the best weights are copied at every evaluation

    sites = _count_reads(monkeypatch, "pretrain/finetune/")
    torch.manual_seed(0)
    result = train(
        TinyTagger(), items, evaluate=evaluate, config=_config(), seed=3, pad_id=0, unk_id=1, keep_ids=(2, 3, 0)
    )
    assert result.steps == 20 and len(evaluations) == 2  # 10 steps an epoch, one evaluation each
    # one read per evaluation (the last and the mean loss, stacked), none per step
    assert sites == ["trainer.py:read:tolist"] * 2
    last, mean = result.history[-1]["loss"], result.history[-1]["mean_loss"]
    assert 0 < last < 10 and 0 < mean < 10


def test_the_mean_loss_is_the_mean_of_the_steps_since_the_last_evaluation():
    """The loss summed on the device equals the losses of the steps read one by one (an independent recount)."""
    items = _items(16)
    seen: list[float] = []

    class Recording(TinyTagger):
        def forward(self, *args, **kwargs):
            out = super().forward(*args, **kwargs)
            seen.append(float(out.loss.detach()))
            return out

    torch.manual_seed(0)
    result = train(
        Recording(),
        items,
        evaluate=lambda m: 0.0,
        config=_config(epochs=1, evals_per_epoch=2, token_dropout=0.0),
        seed=1,
        pad_id=0,
    )
    first, second = result.history
    assert first["step"] == 2 and second["step"] == 4
    assert first["mean_loss"] == pytest.approx(sum(seen[:2]) / 2, rel=1e-6)
    assert second["mean_loss"] == pytest.approx(sum(seen[2:4]) / 2, rel=1e-6)
    assert second["loss"] == pytest.approx(seen[3], rel=1e-6)
