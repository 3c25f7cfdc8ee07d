"""Shared fixtures: where the real corpora are, and skips with a clear reason when they are not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokstudy.datalocation import CORPORA, data_root

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def corpus_path(name: str) -> Path:
    """Path of a real corpus; skips the test when the data location lacks it."""
    path = data_root() / CORPORA.get(name, name)
    if not path.is_dir():
        pytest.skip(
            f"real corpus {name!r} not found at {path} (set TOKSTUDY_DATA to the folder holding "
            f"the shared corpora; CI sets it to ../shared/data)"
        )
    return path


@pytest.fixture
def shared_data() -> Path:
    """The data location; skips when it does not exist."""
    root = data_root()
    if not root.is_dir():
        pytest.skip(f"no real corpora at {root} (set TOKSTUDY_DATA)")
    return root


def pytest_collection_modifyitems(config, items):
    """Files with a slow test first; skip GPU tests without CUDA (checked lazily, never importing torch when not
    needed).

    The Makefile's two workers take whole files in this order (``--dist loadfile --no-loadscope-reorder``): the
    long files start first and the many short ones even out the end. xdist's own order (most tests first) left
    the one-test studies that kill a run to the end of the suite (benchmarks/results/tests.md)."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: collection order within each group
    gpu_items = [it for it in items if it.get_closest_marker("gpu") is not None]
    if not gpu_items:
        return
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if not has_cuda:
        skip = pytest.mark.skip(reason="needs a CUDA device")
        for it in gpu_items:
            it.add_marker(skip)


# One BLAS/OpenMP thread per process: the test models are tiny, and on a busy 2-core machine more threads thrash.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
