"""`make gpu-check DRY_RUN=1 ...` run as a user types it, for the tests of the GPU check's dry runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_runner  # noqa: E402 (a script module of benchmarks/)


def make_gpu_check_dry_run(out: Path, data: Path, *make_args: str, timeout: int = 900) -> dict:
    """Run ``make gpu-check DRY_RUN=1 *make_args`` into ``out`` and return its ``summary.json``; the run must exit 0.

    The environment is a user's shell: no ``OUT``, and none of the launcher variables an engine built in the test
    process set (the check drops those itself too). Skips where ``make`` is not installed.
    """
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k != "OUT" and k not in gpu_runner.LAUNCHER_VARIABLES}
    proc = subprocess.run(
        ["make", "gpu-check", "DRY_RUN=1", *make_args, f"OUT={out}", f"DATA={data}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return json.loads((out / "summary.json").read_text())
