"""Python's cyclic garbage collector turned off while a corpus partition is counted.

Why: counting a chunk builds lists of hundreds of thousands of words and pieces. The collector is
triggered by allocation counts (about 400 young and 3-4 full collections per 8 MiB of text), walks
those lists again and again, and every full collection also walks the process's whole heap of
long-lived objects, which is about 3x larger in a dask worker (71k tracked objects, against 26k in
a local pool worker: distributed, tornado, asyncio). Measured as CPU time of the task's thread on
8 MiB of raw text with a 32k SentencePiece model, the collector took 13-16 % of a task in a local
pool worker and 18-24 % in a dask worker: about half of ``--engine dask``'s extra worker CPU
(benchmarks/results/corpus.md). The counting makes no reference cycles (reference counting frees
everything it makes), so nothing is kept longer.

>>> import gc
>>> with cyclic_gc_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_state = {"depth": 0, "was_enabled": False}


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The collector off inside (thread-safe, nestable): back on when the last task leaves, if it was on."""
    with _lock:
        if _state["depth"] == 0:
            _state["was_enabled"] = gc.isenabled()
            gc.disable()
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0 and _state["was_enabled"]:
                gc.enable()
