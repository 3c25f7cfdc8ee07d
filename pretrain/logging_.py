"""Training metrics to ``metrics.csv`` and TensorBoard (rank 0 only).

Columns: step, loss, mlm_loss, mlm_accuracy, sop_loss, sop_accuracy, lr, tokens_per_s,
elapsed_s, max_memory_gib (the device's peak allocated memory so far; empty on CPU). On resume the
rows after the resumed step (written by the interrupted run after its last checkpoint) are dropped,
so the CSV reads as one uninterrupted run; TensorBoard is told the same with ``purge_step``.

>>> log = MetricsLogger("runs/tiny", resume_step=0)       # doctest: +SKIP
>>> log.write(10, {"loss": 7.1, "lr": 1e-4})              # doctest: +SKIP
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Mapping

COLUMNS = (
    "step",
    "loss",
    "mlm_loss",
    "mlm_accuracy",
    "sop_loss",
    "sop_accuracy",
    "lr",
    "tokens_per_s",
    "elapsed_s",
    "max_memory_gib",
)


class MetricsLogger:
    """Appends one row per logged step; ``enabled=False`` (ranks > 0) makes every call a no-op."""

    def __init__(
        self, output_dir: str | os.PathLike, *, resume_step: int = 0, enabled: bool = True, tensorboard: bool = True
    ):
        self.enabled = enabled
        self.path = Path(output_dir) / "metrics.csv"
        self._tb = None
        if not enabled:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        kept: list[dict] = []
        if self.path.is_file():
            with open(self.path, newline="", encoding="utf-8") as f:
                kept = [
                    row
                    for row in csv.DictReader(f)
                    if row.get("step", "").isdigit() and int(row["step"]) <= resume_step
                ]
        with open(self.path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(kept)
        if tensorboard:
            try:
                # deferred: tensorboard is optional, only when asked for
                from torch.utils.tensorboard import SummaryWriter

                self._tb = SummaryWriter(log_dir=str(Path(output_dir) / "tensorboard"), purge_step=resume_step + 1)
            except ImportError:  # tensorboard is optional; the CSV always exists
                self._tb = None

    def write(self, step: int, values: Mapping[str, float]) -> None:
        if not self.enabled:
            return
        row = {"step": step, **{k: values.get(k, "") for k in COLUMNS if k != "step"}}
        with open(self.path, "a", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, fieldnames=COLUMNS).writerow(row)
        if self._tb is not None:
            for key, value in values.items():
                if isinstance(value, (int, float)):
                    self._tb.add_scalar(f"train/{key}", value, step)
            self._tb.flush()

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
            self._tb = None


def read_metrics(output_dir: str | os.PathLike) -> list[dict[str, float]]:
    """The rows of ``metrics.csv`` as floats, empty cells left out (what the study's time table reads)."""
    with open(Path(output_dir) / "metrics.csv", newline="", encoding="utf-8") as f:
        return [{k: float(v) for k, v in row.items() if v not in ("", None)} for row in csv.DictReader(f)]
