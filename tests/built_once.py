"""Read-only test artefacts built once per test run and shared by the pytest-xdist workers.

pytest-xdist runs a session fixture once in every worker, so an artefact that tests only read (a trained
tokenizer, a small saved model, a prepared example store) was built by each worker that ran one of its tests.
:func:`built_once` builds it in a folder every worker of the run sees (beside the workers' own temporary
folders), under a file lock: the first worker to ask builds it, the others wait for the lock and read what it
returned, pickled beside it (pytest-xdist's documented recipe, "Making session-scoped fixtures execute only
once"). Outside xdist it simply builds into a temporary folder of the session.
"""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path
from typing import Callable, TypeVar

from filelock import FileLock

T = TypeVar("T")


def built_once(tmp_path_factory, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder)``'s value, built once for the whole run in ``folder`` (an empty folder named ``name``).

    What ``build`` returns must pickle, and whatever it writes must only be read afterwards: every worker gets
    the same files."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return build(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent / "built-once"  # the run's folder, above each worker's
    shared.mkdir(exist_ok=True)
    record = shared / f"{name}.pickle"
    with FileLock(str(shared / f"{name}.lock")):
        if record.is_file():
            return pickle.loads(record.read_bytes())
        folder = shared / name
        if folder.exists():  # a worker's build that failed (a skip included) left it: built again
            shutil.rmtree(folder)
        folder.mkdir()
        value = build(folder)
        record.write_bytes(pickle.dumps(value))
        return value
