"""The GPU check (``make gpu-check``, benchmarks/gpu_check.py) cannot rot between GPU leases.

Its dry run (``make gpu-check DRY_RUN=1``, this exact spelling) prepares the carried folder as a user
would, checks it, and runs every step at toy sizes on the CPU through the same commands the GPU run
uses; here it must end with every step ok. The carried folder's checks and the GPU budgets are tested
directly.
"""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.pretrain.gpu_dry_run import make_gpu_check_dry_run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

# script modules of benchmarks/: the command line and the parts it runs
import gpu_carry  # noqa: E402
import gpu_check  # noqa: E402
import gpu_check_plan  # noqa: E402
import gpu_check_steps  # noqa: E402
import gpu_check_summary  # noqa: E402
import gpu_runner  # noqa: E402
import gpu_versions  # noqa: E402


def test_the_gpu_steps_fit_eight_minutes_with_the_install():
    assert sum(gpu_check_plan.GPU_BUDGET.values()) <= 8 * 60
    assert (
        gpu_check_plan.DATA_BUDGET
        <= gpu_check_plan.GPU_BUDGET["bench-512"] + gpu_check_plan.GPU_BUDGET["pytest-gpu"] + 60
    )
    assert gpu_check_plan.STUDY_BUDGET <= 5 * 60


def _fake_carry(root: Path, wheels: list[str]) -> Path:
    (root / "wheels").mkdir(parents=True)
    for name in wheels:
        (root / "wheels" / name).write_bytes(b"x")
    for corpus in gpu_carry.DATA_SLICE:
        (root / "data" / corpus).mkdir(parents=True)
    return root


def test_the_carried_folder_check_names_what_is_missing_doubled_or_too_big(tmp_path, monkeypatch):
    every = [f"{d}-1.0-py3-none-any.whl" for d in gpu_carry.CARRIED]
    assert gpu_carry.check_carry(_fake_carry(tmp_path / "ok", every)) == []
    missing = gpu_carry.check_carry(_fake_carry(tmp_path / "missing", every[1:]))
    assert missing == [f"{tmp_path / 'missing' / 'wheels'}: no wheel of {next(iter(gpu_carry.CARRIED))}"]
    doubled = gpu_carry.check_carry(_fake_carry(tmp_path / "doubled", [*every, "hjson-9.9-py3-none-any.whl"]))
    assert len(doubled) == 1 and "2 versions of hjson" in doubled[0]
    monkeypatch.setattr(gpu_carry, "_worktree_bytes", lambda: 64 * 2**20)
    big = gpu_carry.check_carry(_fake_carry(tmp_path / "big", every))
    assert len(big) == 1 and "more than 64 MiB travels" in big[0]


def test_one_preparation_of_the_carried_folder_at_a_time(tmp_path):
    """While one preparation holds the folder, another cannot take it (it waits: two test workers' dry runs on a
    fresh clone would otherwise download into the folder together); once it ends, it can."""
    import fcntl

    carry = tmp_path / "carry"

    def free() -> bool:
        with (carry / ".prepare.lock").open("w") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

    with gpu_carry.preparing(carry):
        assert not free()
    assert free()


@pytest.mark.slow
def test_make_gpu_check_dry_run_passes(tmp_path, shared_data):
    """`make gpu-check DRY_RUN=1` as a user types it: every step ok, on CPU, at toy sizes."""
    out = tmp_path / "out"
    summary = make_gpu_check_dry_run(out, shared_data)
    steps = {s["name"]: s for s in summary["steps"]}
    assert list(steps) == ["install", "attention", "bench-512", "pytest-gpu", "bench-128", "data", "train", "export"]
    assert all(s["status"] == "ok" for s in steps.values()) and summary["ok"]
    assert set(steps["pytest-gpu"]["facts"]["tests"]) >= {
        "test_one_bf16_step_of_the_base_preset",
        "test_a_step_never_waits_for_the_device",
        "test_variable_length_flash_attention_equals_the_padded_forward",
    }
    (kernel,) = steps["attention"]["facts"]["kernels"][:1]  # on CPU: SDPA's math kernel only
    assert kernel["kernel"] == "sdpa math" and kernel["forward_tflops"] > 0
    assert "| mixed | sdpa math |" in (out / "summary.md").read_text()
    rows = steps["bench-512"]["facts"]["rows"]
    assert {v for r in rows for v, rate in r["tokens_per_s"].items() if rate} == {"baseline", "ours"}
    # our steps timed in windows of 1 and 4 (the CPU's window is 1 step), and the summary says so
    assert [sorted(r["window_ms"]) for r in rows] == [["ours"]] * len(rows)
    assert all(list(r["window_ms"]["ours"]) == ["1", "4"] and min(r["window_ms"]["ours"].values()) > 0 for r in rows)
    assert "ms per step of ours (3,000) in windows of back-to-back steps: 1 step " in (out / "summary.md").read_text()
    assert steps["train"]["facts"]["logged_steps"][-1] == gpu_check_plan.DRY.train_steps
    assert len(steps["export"]["facts"]["fill_mask_top3"]) == 3
    text = (out / "summary.md").read_text()
    assert "all steps ok" in text and "| train | ok |" in text
    # the versions as the steps' interpreter imports them (read by install's import check: no CUDA here)
    env = summary["environment"]
    assert {k: env[k] for k in ("python", "torch", "transformers", "deepspeed", "device", "capability")} == {
        "python": platform.python_version(),
        "torch": version("torch"),
        "transformers": version("transformers"),
        "deepspeed": version("deepspeed"),
        "device": "cpu",
        "capability": None,
    }
    assert f"Python {env['python']}, torch {env['torch']} (CUDA {env['cuda']})" in text


def test_the_summary_asks_the_versions_itself_when_install_wrote_none(tmp_path):
    """On a CUDA machine (or after a failed install) no versions file: a process of the steps' interpreter is asked,
    its last line read; what it could not say becomes the error."""
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\necho "a warning"\necho \'{"torch": "9.9", "device": "H100"}\'\n')
    python.chmod(0o755)
    env = gpu_versions.environment(str(python), {}, tmp_path / "versions.json")
    assert env == {"torch": "9.9", "device": "H100", "host": platform.node(), "cpus": os.cpu_count()}
    python.write_text("#!/bin/sh\necho 'no torch here' >&2\nexit 1\n")
    assert gpu_versions.environment(str(python), {}, tmp_path / "versions.json")["error"] == "no torch here"
    (tmp_path / "versions.json").write_text("")  # cut short: asked again
    assert gpu_versions.environment(str(python), {}, tmp_path / "versions.json")["error"] == "no torch here"
    (tmp_path / "versions.json").write_text('{"torch": "2.11.0", "device": "cpu"}')
    assert gpu_versions.environment(str(python), {}, tmp_path / "versions.json")["torch"] == "2.11.0"


def test_only_runs_the_steps_named_with_what_they_need():
    assert gpu_check_plan.selected_steps(None) == set(gpu_check_plan.STEPS)
    assert gpu_check_plan.selected_steps("bench-512") == {"bench-512"}
    assert gpu_check_plan.selected_steps("export") == {"export", "train"}
    with pytest.raises(SystemExit, match="unknown step.*bench-1024"):
        gpu_check_plan.selected_steps("bench-1024")


def test_the_doctests_run():
    import doctest

    for module in (gpu_check, gpu_carry, gpu_check_plan, gpu_runner, gpu_check_steps, gpu_check_summary, gpu_versions):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_the_profile_sorts_the_h200_kernels_into_families():
    """Kernel names as the H200 profile of 2026-11-26 printed them land in the family they belong to."""
    import doctest

    import bench_pretrain
    import pretrain_measure
    import pretrain_variants
    import pretrain_worker

    for module in (bench_pretrain, pretrain_variants, pretrain_worker, pretrain_measure):
        assert doctest.testmod(module).failed == 0, module.__name__
    names = {
        "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_trait...": "attention",
        "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1": "attention",
        "nvjet_sm90_tst_192x192_64x3_2x1_v_bz_coopB_splitK_NTN": "matrix products",
        "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>": "matrix products",
        "triton_per_fused__to_copy_add_native_layer_norm_backward_23": "fused element-wise (inductor)",
        "void lamb_cuda_kernel_part1<float, float, 512>(float*, float*)": "optimizer",
        "Memset (Device)": "copies and fills",
        "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::BFloat16>": "other",
    }
    for name, family in names.items():
        breakdown = pretrain_worker.kernel_breakdown([(name, 1.0)], wall_ms=1.0, steps=1)
        assert breakdown[family] == 1.0, (name, breakdown)
