"""The optional ``bench-variants`` step of the GPU check (issue 34, item 2): ours beside inductor's GEMM autotuning
and CUDA graphs, run only when named (``make gpu-check ONLY=bench-variants``). On CPU the CUDA-only variants are
reported as skipped with their reason; ours runs at toy sizes."""

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

import bench_pretrain  # noqa: E402 (script modules of benchmarks/)
import gpu_check_plan  # noqa: E402
import gpu_runner  # noqa: E402
import pretrain_variants  # noqa: E402


def test_the_variants_step_runs_only_when_named():
    assert "bench-variants" not in gpu_check_plan.selected_steps(None)
    assert gpu_check_plan.selected_steps("bench-variants") == {"bench-variants"}
    assert set(gpu_check_plan.VARIANTS[1:]) <= set(bench_pretrain.VARIANTS)
    assert sum(gpu_check_plan.GPU_BUDGET.values()) <= 8 * 60  # the optional step is not part of the 8 minutes
    assert gpu_check_plan.OPTIONAL_BUDGET["bench-variants"] <= 600 - 60  # one device command, with the install


@pytest.mark.slow
def test_make_gpu_check_dry_run_of_the_variants(tmp_path, shared_data):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "OUT" and k not in gpu_runner.LAUNCHER_VARIABLES}
    proc = subprocess.run(
        ["make", "gpu-check", "DRY_RUN=1", "ONLY=bench-variants", f"OUT={out}", f"DATA={shared_data}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    summary = json.loads((out / "summary.json").read_text())
    assert [s["name"] for s in summary["steps"]] == ["install", "bench-variants"] and summary["ok"]
    (row,) = summary["steps"][1]["facts"]["rows"]
    assert row["tokens_per_s"]["ours"] > 0
    for variant in ("ours-gemm-autotune", "ours-cudagraphs"):
        assert row["tokens_per_s"][variant] is None
        assert row["errors"][variant] == f"skipped (needs CUDA: {pretrain_variants.CUDA_ONLY[variant]})"
    assert sorted(p.name for p in out.iterdir()) == ["steps.tar.gz", "summary.json", "summary.md"]
