"""Python's cyclic garbage collector turned off while a corpus partition is counted.

Why: counting a chunk builds lists of hundreds of thousands of words and pieces. The collector is
triggered by allocation counts (about 400 young and 3-4 full collections per 8 MiB of text), walks
those lists again and again, and every full collection also walks the process's whole heap of
long-lived objects, which a dask worker makes 3-5x larger than a plain process (distributed,
tornado, asyncio). Measured on 8 MiB of raw text with a 32k SentencePiece model: the collector
took 35-45 % of the task's time in a plain process and 55-70 % in a dask worker, which was most
of ``--engine dask``'s extra CPU (benchmarks/results/corpus.md). The counting creates no
reference cycles (reference counting frees everything it makes), so nothing is kept longer.

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
