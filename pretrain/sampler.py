"""Which examples each optimiser step reads: a seeded permutation per epoch, sliced by step.

The order is a pure function of ``(seed, step)``, so the data position of a run *is* its step
counter: a resumed run reads exactly the batches the uninterrupted run would have read, and any
number of data-parallel processes read disjoint slices of the same global batch (which is what
makes 1 process and 2 processes reach the same parameters).

>>> order = GlobalBatchOrder(num_examples=10, global_batch=4, seed=0)
>>> order.steps_per_epoch, len(order.global_indices(0)), len(order.local_indices(0, rank=1, world_size=2))
(2, 4, 2)
"""

from __future__ import annotations

import numpy as np


class GlobalBatchOrder:
    """Global batches of ``global_batch`` example indices; epochs drop their last partial batch.

    Args:
        num_examples: size of the example store.
        global_batch: sequences per optimiser step over all processes.
        seed: the run's seed; epoch ``e`` uses the permutation of ``default_rng([seed, e])``.
    """

    def __init__(self, num_examples: int, global_batch: int, seed: int):
        if num_examples < global_batch:
            raise ValueError(
                f"the example store holds {num_examples} examples, fewer than one global batch of {global_batch}: "
                "prepare more data or lower batch_size"
            )
        self.num_examples = int(num_examples)
        self.global_batch = int(global_batch)
        self.seed = int(seed)
        self.steps_per_epoch = self.num_examples // self.global_batch
        self._cached_epoch: int | None = None
        self._perm: np.ndarray | None = None

    def epoch_of(self, step: int) -> int:
        return step // self.steps_per_epoch

    def _permutation(self, epoch: int) -> np.ndarray:
        if epoch != self._cached_epoch:
            self._perm = np.random.default_rng([self.seed, epoch]).permutation(self.num_examples)
            self._cached_epoch = epoch
        return self._perm

    def global_indices(self, step: int) -> np.ndarray:
        """The ``global_batch`` example indices of optimiser step ``step`` (0-based)."""
        epoch, pos = divmod(step, self.steps_per_epoch)
        perm = self._permutation(epoch)
        return perm[pos * self.global_batch : (pos + 1) * self.global_batch]

    def local_indices(self, step: int, *, rank: int, world_size: int) -> np.ndarray:
        """This process's contiguous share of step ``step``'s global batch."""
        share = self.global_batch // world_size
        return self.global_indices(step)[rank * share : (rank + 1) * share]

    def micro_batches(self, step: int, *, rank: int, world_size: int, micro_batch_size: int) -> list[np.ndarray]:
        """This process's share split into gradient-accumulation micro-batches."""
        local = self.local_indices(step, rank=rank, world_size=world_size)
        return [local[i : i + micro_batch_size] for i in range(0, len(local), micro_batch_size)]
