"""One seed for every random number generator a run draws from (Python, numpy, torch on CPU and CUDA).

Pre-training seeds each rank with ``seed + rank``; fine-tuning seeds each run with its seed, so the
classifier head and the batch order are the same on a rerun.

>>> seed_everything(3); a = random.random(); seed_everything(3); a == random.random()
True
"""

from __future__ import annotations

import random

import numpy as np


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and torch (every device)."""
    # deferred: torch (~1-2 s), only when a model runs; the module imports without it
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)  # seeds CUDA too
