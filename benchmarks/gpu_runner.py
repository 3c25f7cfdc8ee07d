"""How the GPU check runs a step: each in its own process under its time limit (:class:`Runner`, a background one
watched by a thread: :class:`Background`), in an environment of the carried wheels and no launcher's variables
(:func:`step_env`), what it found kept as a :class:`StepResult`. Also used by the one-lease study (``gpu_lease.py``).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Set by torchrun or DeepSpeed's launcher for its children; every step here is one process of its own, so a
#: caller's (a launcher's, or a test process that built an engine) must not reach it: its port is taken.
LAUNCHER_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK")


@dataclass
class StepResult:
    name: str
    status: str  # ok | failed | timeout | skipped
    seconds: float
    budget_s: int
    log: str
    facts: dict = field(default_factory=dict)


class Background:
    """A step's process watched by a thread: its end time is when it ended, not when someone asked."""

    def __init__(self, proc: subprocess.Popen, budget: int):
        self.proc, self.budget, self.t0 = proc, budget, time.perf_counter()
        self.status, self.seconds = "running", 0.0
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        try:
            code = self.proc.wait(timeout=self.budget)
            self.status = "ok" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.status = "timeout"
        self.seconds = time.perf_counter() - self.t0

    def result(self) -> tuple[str, float]:
        self._thread.join()
        return self.status, self.seconds


class Runner:
    """Runs each step in its own process under its time limit and keeps what it found."""

    def __init__(self, out: Path, env: dict[str, str], python: str):
        self.out, self.env, self.python = out, env, python
        self.results: list[StepResult] = []

    def command(self, name: str, argv: list[str], budget: int, **facts) -> StepResult:
        log = self.out / f"{name}.log"
        t0 = time.perf_counter()
        with log.open("w") as f:
            f.write(f"$ {' '.join(argv)}\n")
            f.flush()
            try:
                proc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=self.env, cwd=ROOT, timeout=budget)
                status = "ok" if proc.returncode == 0 else "failed"
            except subprocess.TimeoutExpired:
                status = "timeout"
        result = StepResult(name, status, time.perf_counter() - t0, budget, log.name, dict(facts))
        self.results.append(result)
        print(f"[gpu-check] {name}: {status} in {result.seconds:.0f} s (budget {budget} s)", flush=True)
        return result

    def background(self, name: str, argv: list[str], budget: int) -> Background:
        """Start a step that runs beside the others; it is stopped at its budget, its end time noted."""
        log = (self.out / f"{name}.log").open("w")
        log.write(f"$ {' '.join(argv)}\n")
        log.flush()
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=ROOT)
        return Background(proc, budget)

    def wait(self, name: str, job: Background) -> StepResult:
        status, seconds = job.result()
        result = StepResult(name, status, seconds, job.budget, f"{name}.log")
        self.results.append(result)
        print(f"[gpu-check] {name}: {status} in {result.seconds:.0f} s (budget {job.budget} s)", flush=True)
        return result

    def skip(self, name: str, why: str, budget: int) -> None:
        self.results.append(StepResult(name, "skipped", 0.0, budget, "", {"why": why}))
        print(f"[gpu-check] {name}: skipped ({why})", flush=True)


#: torch.compile's caches that persist across processes (torch 2.11): the FX graph cache (inductor's compiled graphs,
#: with the Triton kernels they need) and the AOTAutograd cache (the joint forward-backward graphs). Both are on by
#: default and keyed on the graph, its input shapes, the config and the torch/Triton/GPU versions, so a process
#: compiling a graph another step compiled reuses it. What setting them here adds: one folder named by the check,
#: kept under the checkout (ignored by git) and so across commands on a warm machine, whatever happens to /tmp.
COMPILE_CACHE_ENV = ("TORCHINDUCTOR_FX_GRAPH_CACHE", "TORCHINDUCTOR_AUTOGRAD_CACHE")


def step_env(environ, *, site: Path, carry: Path, compile_cache: Path) -> dict[str, str]:
    """Every step's environment: the carried wheels and this checkout first on the path, the carried data, one
    shared torch.compile cache (:data:`COMPILE_CACHE_ENV`), and none of a launcher's variables.

    >>> env = step_env({"MASTER_PORT": "29500", "HOME": "/root"}, site=Path("/s"), carry=Path("/c"),
    ...                compile_cache=Path("/k"))
    >>> "MASTER_PORT" in env, env["HOME"], env["TOKSTUDY_DATA"], env["TORCHINDUCTOR_CACHE_DIR"]
    (False, '/root', '/c/data', '/k')
    """
    return {
        **{k: v for k, v in environ.items() if k not in LAUNCHER_VARIABLES},
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
        "TOKSTUDY_DATA": str(carry / "data"),
        "PYTHONUNBUFFERED": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "TORCH_LOGS": "recompiles",
        "TORCHINDUCTOR_CACHE_DIR": str(compile_cache),
        **{name: "1" for name in COMPILE_CACHE_ENV},
    }
