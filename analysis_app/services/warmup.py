"""Import the heavy analysis modules in the background once per app process.

``scipy.stats`` alone takes seconds to import on a loaded 2-core machine, and the
Statistics, Errors and Languages pages all need it; the explorer (the start page) does
not. Importing them in a daemon thread while the first page is read makes the first
visit of those pages that much faster. Python's import lock makes this safe: a page that
needs a module still being imported waits for that import, it never sees half a module.
"""

from __future__ import annotations

import contextlib
import importlib
import threading

#: what the statistics pages import on their first run, slowest first.
MODULES = ("scipy.stats", "tokstudy.analysis.correlation", "tokstudy.analysis.stats", "tokstudy.analysis.parity")

_started = threading.Event()


def start() -> bool:
    """Start the background imports (once per process); returns whether this call started them."""
    if _started.is_set():
        return False
    _started.set()
    threading.Thread(target=_import_all, name="tokstudy-warmup", daemon=True).start()
    return True


def _import_all() -> None:
    for name in MODULES:
        # a module that fails here fails again, with its message, where a page uses it
        with contextlib.suppress(Exception):
            importlib.import_module(name)
