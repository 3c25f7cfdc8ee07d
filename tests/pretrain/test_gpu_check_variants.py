"""The optional ``bench-variants`` step of the GPU check (issue 34, item 2): ours beside inductor's GEMM autotuning
and CUDA graphs, run only when named (``make gpu-check ONLY=bench-variants``). On CPU the CUDA-only variants are
reported as skipped with their reason; ours runs at toy sizes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.pretrain.gpu_dry_run import make_gpu_check_dry_run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_pretrain  # noqa: E402 (script modules of benchmarks/)
import gpu_check_plan  # noqa: E402
import pretrain_variants  # noqa: E402


def test_the_variants_step_runs_only_when_named():
    assert "bench-variants" not in gpu_check_plan.selected_steps(None)
    assert gpu_check_plan.selected_steps("bench-variants") == {"bench-variants"}
    assert set(gpu_check_plan.VARIANTS[1:]) <= set(bench_pretrain.VARIANTS)
    assert sum(gpu_check_plan.GPU_BUDGET.values()) <= 8 * 60  # the optional step is not part of the 8 minutes
    assert gpu_check_plan.OPTIONAL_BUDGET["bench-variants"] <= 600 - 60  # one device command, with the install


@pytest.mark.slow
def test_make_gpu_check_dry_run_of_the_variants(tmp_path, shared_data):
    out = tmp_path / "out"
    summary = make_gpu_check_dry_run(out, shared_data, "ONLY=bench-variants")
    assert [s["name"] for s in summary["steps"]] == ["install", "bench-variants"] and summary["ok"]
    (row,) = summary["steps"][1]["facts"]["rows"]
    assert row["tokens_per_s"]["ours"] > 0
    for variant in ("ours-gemm-autotune", "ours-cudagraphs"):
        assert row["tokens_per_s"][variant] is None
        assert row["errors"][variant] == f"skipped (needs CUDA: {pretrain_variants.CUDA_ONLY[variant]})"
    assert sorted(p.name for p in out.iterdir()) == ["steps.tar.gz", "summary.json", "summary.md"]
