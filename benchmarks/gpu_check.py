"""Check and measure every GPU path of the pre-trainer on a bare GPU machine, in one command.

A GPU lease is short (a rented GPU by the hour, a cluster job with a time limit, 15 minutes here), the
machine may reach no network, and a first contact should never cost the whole lease on a crash. So
the check is prepared on the development machine and runs once, end to end, there::

    make gpu-wheels              # here: the carried folder .gpu-carry/ (wheels the GPU image lacks, a data slice)
    make gpu-check               # there: every step in its own process with its own time limit
    make gpu-check STUDY=1       # there, with time left: the whole `gpu-check` study (<= 5 minutes)
    make gpu-check STUDY=lease   # there, first on a lease: the one-lease study (<= 9 minutes; gpu_lease.py)
    make gpu-check DRY_RUN=1     # here, on CPU: prepare and check the folder, then the same steps at toy sizes

Steps (budgets in :data:`GPU_BUDGET`; one failure never stops the others):

* ``install``: the carried wheels into a private folder put on ``PYTHONPATH``; every package imports from it;
* ``data`` (in the background, on the CPU, while the GPU steps run): a tokenizer and an example store
  from the carried slice of ``raw_text_large``;
* ``attention``: ``bench_attention.py``, the attention kernels at ALBERT-base's shape (FlashAttention-2 and
  cuDNN through torch's varlen op, SDPA's backends), eager: TFLOP/s and agreement with the first;
* ``bench-512``: ``bench_pretrain.py --gpu`` at sequence 512, batch 128, vocabularies 32k and 128k, ours and the
  Hugging Face baseline: tokens/s, MFU against the device's dense bf16 peak, peak memory, compile facts,
  synchronising calls per step, and a profile of two steps of ours;
* ``pytest-gpu``: ``pytest -m gpu`` (varlen FlashAttention against the padded loss, cuDNN's varlen attention
  against FlashAttention's, no host syncs, one bf16 step of the base preset, LAMB per tensor, a resumed run
  equal to an uninterrupted one);
* ``bench-128``: ours at sequence 128, 32k;
* ``train``: ``pretrain train`` with the base preset for 50 steps on the store of ``data``;
* ``export``: ``pretrain export`` of that run and a ``fill-mask`` pipeline on the export.

Everything goes into one folder (``--out``, default ``$OUT``): ``summary.md`` (per step: status, time,
versions and device, compile facts, synchronising calls, peak memory, steady tokens/s), ``summary.json``
and one log per step. Nothing is downloaded on the GPU machine: its ``python3`` (which has torch) runs
everything with the carried wheels on ``PYTHONPATH``; ``make``'s virtual environment is not used there.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_lease  # noqa: E402 (a script module of benchmarks/)

CARRY = ROOT / ".gpu-carry"
#: What the GPU image lacks (its package list, read 2026-11-17) of what tokstudy[pretrain] and deepspeed need:
#: distribution name -> the module it provides. Versions are those of this environment, so the GPU runs
#: what the tests here ran.
CARRIED = {
    "deepspeed": "deepspeed",
    "hjson": "hjson",
    "seqeval": "seqeval",
    "pydantic": "pydantic",
    "pydantic_core": "pydantic_core",
    "annotated_types": "annotated_types",
    "typing_inspection": "typing_inspection",
}
#: Built here from their source distributions (pure Python; deepspeed with its ops left to JIT).
BUILT = ("deepspeed", "seqeval")
#: The slice of the shared data the check and the studies read (corpus -> files, None = all): all of ``raw_text`` and
#: ``raw_text_large`` (the one-lease study's vocabularies are trained on both, 20 languages; 20 MB compressed),
#: CoNLL-2003 and XQuAD's parallel text.
DATA_SLICE = {
    "raw_text": None,
    "raw_text_large": None,
    "conll2003_en": None,
    "xquad_parallel": None,
}
#: Set by torchrun or DeepSpeed's launcher for its children; every step here is one process of its own, so a
#: caller's (a launcher's, or a test process that built an engine) must not reach it: its port is taken.
LAUNCHER_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK")
#: What travels to the device machine at most (the working tree and the carried folder together).
CARRY_LIMIT_BYTES = 64 * 2**20
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


@dataclass(frozen=True)
class Sizes:
    """How big each step is: the GPU check, or its toy version for the CPU dry run."""

    attention: list[str]
    bench_512: list[str]
    bench_128: list[str]
    vocab: int
    sample: int
    text: str  # what the tokenizer and the example store read, under the carried data
    seq: int
    predictions: int
    examples: int
    model: str
    train_steps: int
    batch: int
    bench_variants: list[str] = field(default_factory=list)


#: The variants of issue 34's item 2 beside ours, run only when asked (``--only bench-variants``): each compiles
#: for a minute or more, and GEMM autotuning for several.
VARIANTS = ["--variants", "ours", "ours-gemm-autotune", "ours-cudagraphs"]
GPU = Sizes(
    attention=["--batch", "128"],
    bench_512=[
        "--gpu",
        "--vocab",
        "32000",
        "128000",
        "--batch",
        "128",
        "--steps",
        "15",
        "--warmup",
        "4",
        "--baseline-max-vocab",
        "64000",
    ],
    bench_128=["--gpu", "--vocab", "32000", "--seq", "128", "--batch", "256", "--variants", "ours", "--steps", "15"],
    vocab=32000,
    sample=200000,
    text="raw_text_large",
    seq=512,
    predictions=80,
    examples=128 * 52,
    model="base",
    train_steps=50,
    batch=128,
    bench_variants=["--gpu", "--vocab", "32000", "--batch", "128", "--steps", "10", "--warmup", "3", *VARIANTS],
)
DRY = Sizes(
    attention=["--batch", "4", "--seq", "64", "--heads", "2", "--head-dim", "16", "--iters", "2", "--warmup", "1"],
    bench_512=[
        "--model",
        "tiny",
        "--vocab",
        "3000",
        "--seq",
        "64",
        "--batch",
        "8",
        "--steps",
        "2",
        "--warmup",
        "1",
        "--window-check",
    ],
    bench_128=[
        "--model",
        "tiny",
        "--vocab",
        "3000",
        "--seq",
        "32",
        "--batch",
        "8",
        "--variants",
        "ours",
        "--steps",
        "2",
    ],
    vocab=600,
    sample=3000,
    text="raw_text_large/es.txt.gz",  # the smallest of the six: the store's reader goes through all it is given
    seq=64,
    predictions=10,
    examples=8 * 8,
    model="tiny",
    train_steps=6,
    batch=8,
    bench_variants=[
        "--model",
        "tiny",
        "--vocab",
        "3000",
        "--seq",
        "64",
        "--batch",
        "8",
        "--steps",
        "2",
        "--warmup",
        "1",
        *VARIANTS,
    ],  # fmt: skip
)
#: Each step's time limit in seconds on one H100/H200 (the whole command: at most 8 minutes, install included).
#: Sized on the H100 of 2026-11-27 (cold compiles of ALBERT-base: about 60 s a graph) with the H200's runs of
#: 2026-11-26 beside: install 7 s; attention within 25; bench-512 over 200 (32k done: the HF loop 15.5 s of
#: warm-up, ours 60.3 s of compile; 128k still compiling); pytest-gpu within 80 (its first test 58.7 s of compile);
#: bench-128 just over 75 (57.8 s of compile); train and export within 45 and 40 (H200: 32 and 27 s). Four graphs
#: (32k and 128k at 512 x 128, the tests', 128 x 256) compile cold once each; the shared compile cache
#: (:data:`COMPILE_CACHE_ENV`) lets ``train`` reuse bench-512's 32k graph. bench-512 no longer runs the HF loop at
#: 128k (out of memory even on the H200's 141 GB) nor the window check (answered on the H100: 106.5 / 101.6 / 102.0
#: ms a step in windows of 1 / 5 / 20: the device waits in every step; ``bench_pretrain.py --window-check`` keeps it).
GPU_BUDGET = {
    "install": 10,
    "attention": 20,
    "bench-512": 220,
    "pytest-gpu": 80,
    "bench-128": 85,
    "train": 35,
    "export": 30,
}
#: Steps run only when ``--only`` names them, with their budgets (GPU, dry run): not part of the 8 minutes.
#: ``pytest-finetune``: the fine-tuner's GPU tests (a CUDA run, no synchronising call between evaluations).
OPTIONAL_BUDGET = {"bench-variants": 420, "pytest-finetune": 90}
OPTIONAL_DRY_BUDGET = {"bench-variants": 240, "pytest-finetune": 300}
DATA_BUDGET = 240  # in the background, alongside the first GPU steps
STUDY_BUDGET = 300
DRY_BUDGET = {
    "install": 120,
    "attention": 60,
    "bench-512": 240,
    "pytest-gpu": 300,
    "bench-128": 120,
    "train": 180,
    "export": 90,
}


@dataclass
class StepResult:
    name: str
    status: str  # ok | failed | timeout | skipped
    seconds: float
    budget_s: int
    log: str
    facts: dict = field(default_factory=dict)


# -- preparing the carried folder (development machine) -----------------------------------------------


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def _wheel_present(wheels: Path, dist: str, version: str) -> bool:
    return any(wheels.glob(f"{dist}-{version}-*.whl"))


def prepare_wheels(wheels: Path, python: str = sys.executable) -> list[Path]:
    """Every package of :data:`CARRIED` as a wheel for Python 3.12 on x86-64 Linux (skips those present)."""
    wheels.mkdir(parents=True, exist_ok=True)
    for dist in CARRIED:
        version = _version(dist.replace("_", "-"))
        if _wheel_present(wheels, dist, version):
            continue
        if dist in BUILT:  # pure Python: built here from the source distribution
            env = {**os.environ, "DS_BUILD_OPS": "0"}
            cmd = [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
            subprocess.run([*cmd, f"{dist}=={version}"], check=True, env=env)
        else:
            cmd = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", str(wheels)]
            cmd += ["--python-version", "3.12", "--implementation", "cp"]
            for plat in PLATFORMS:
                cmd += ["--platform", plat]
            subprocess.run([*cmd, f"{dist.replace('_', '-')}=={version}"], check=True)
    return sorted(wheels.glob("*.whl"))


def prepare_data(data_root: Path, target: Path) -> None:
    """Copy :data:`DATA_SLICE` of the shared data into the carried folder (the GPU machine sees no ../shared)."""
    for corpus, files in DATA_SLICE.items():
        src = data_root / corpus
        if not src.is_dir():
            raise FileNotFoundError(f"{src}: corpus {corpus!r} not found (set DATA / TOKSTUDY_DATA)")
        dst = target / corpus
        dst.mkdir(parents=True, exist_ok=True)
        for f in sorted(src.iterdir()) if files is None else [src / name for name in files]:
            if f.is_file() and not (dst / f.name).is_file():
                shutil.copy2(f, dst / f.name)


def check_carry(carry: Path) -> list[str]:
    """Problems with the carried folder: a package missing, two versions of one, or too big to travel."""
    problems = []
    wheels = sorted((carry / "wheels").glob("*.whl"))
    for dist in CARRIED:
        found = [w.name for w in wheels if w.name.split("-")[0].lower() == dist]
        if not found:
            problems.append(f"{carry / 'wheels'}: no wheel of {dist}")
        elif len(found) > 1:
            problems.append(f"{carry / 'wheels'}: {len(found)} versions of {dist} ({', '.join(found)}): keep one")
    for corpus in DATA_SLICE:
        if not (carry / "data" / corpus).is_dir():
            problems.append(f"{carry / 'data' / corpus}: missing")
    total = _tree_bytes(carry) + _worktree_bytes()
    if total > CARRY_LIMIT_BYTES:
        problems.append(f"working tree + {carry.name}: {total / 2**20:.1f} MiB, more than 64 MiB travels")
    return problems


def _tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _worktree_bytes() -> int:
    """Bytes of what travels besides the carried folder: tracked files and untracked ones git does not ignore."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if out.returncode != 0:
        return 0
    return sum((ROOT / name).stat().st_size for name in out.stdout.decode().split("\0") if (ROOT / name).is_file())


# -- running the steps (GPU machine, or CPU for the dry run) -------------------------------------------


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


def install(runner: Runner, carry: Path, site: Path, budget: int, *, dry_run: bool) -> StepResult:
    """The carried wheels into ``site`` (no index, no network), then every carried module imported from there.

    The dry run's Python is not the GPU image's 3.12, so there the compiled wheels (``cp312``) are only
    checked by their tags, and their modules import from this environment instead.
    """
    wheels = sorted((carry / "wheels").glob("*.whl"))
    compiled = [w for w in wheels if "-cp312-" in w.name]
    if dry_run:
        bad = [w.name for w in compiled if "x86_64" not in w.name or "manylinux" not in w.name]
        if bad:
            return runner.command("install", ["bash", "-c", f"echo 'not for x86-64 Linux: {bad}'; exit 1"], budget)
        wheels = [w for w in wheels if w not in compiled]
    from_site = [CARRIED[w.name.split("-")[0].lower()] for w in wheels]
    code = (
        "import importlib, json, sys; mods = sys.argv[1].split(','); site = sys.argv[2]; own = sys.argv[3]\n"
        "found = {m: importlib.import_module(m).__file__ for m in mods}\n"
        "print(json.dumps(found, indent=1))\n"
        "bad = [m for m, f in found.items() if m in own.split(',') and not f.startswith(site)]\n"
        "sys.exit(f'not imported from the carried wheels: {bad}' if bad else 0)\n"
    )
    pip = [runner.python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile", "--no-cache-dir"]
    script = (
        f"{' '.join(pip)} --upgrade --target {site} {' '.join(map(str, wheels))} && "
        f"{runner.python} -c {_quote(code)} {','.join(CARRIED.values())} {site} {','.join(from_site)}"
    )
    return runner.command("install", ["bash", "-c", script], budget, wheels=[w.name for w in wheels])


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


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


@dataclass(frozen=True)
class Setting:
    """What every step of one command shares: sizes, budgets, the output and work folders, the interpreter."""

    sizes: Sizes
    budgets: dict
    out: Path
    work: Path
    carry: Path
    python: str
    dry_run: bool

    def optional_budget(self, name: str) -> int:
        return (OPTIONAL_DRY_BUDGET if self.dry_run else OPTIONAL_BUDGET)[name]


def run_check(args) -> int:
    """Check the carried folder, install the wheels, then the study asked for or the steps (:func:`selected_steps`);
    the summary last."""
    work = Path(tempfile.mkdtemp(prefix="gpu-check-"))
    at = Setting(
        sizes=DRY if args.dry_run else GPU,
        budgets=DRY_BUDGET if args.dry_run else GPU_BUDGET,
        out=Path(args.out).resolve(),
        work=work,
        carry=Path(args.carry).resolve(),
        python=args.python,
        dry_run=args.dry_run,
    )
    at.out.mkdir(parents=True, exist_ok=True)
    compile_cache = work / "compile-cache" if args.dry_run else ROOT / "results" / "torch-compile-cache"
    runner = Runner(at.out, step_env(os.environ, site=work / "site", carry=at.carry, compile_cache=compile_cache),
                    at.python)  # fmt: skip
    t_start = time.perf_counter()
    problems = check_carry(at.carry)
    if problems:
        print("\n".join(f"[gpu-check] carried folder: {p}" for p in problems), file=sys.stderr)
        return 2
    install(runner, at.carry, work / "site", at.budgets["install"], dry_run=args.dry_run)
    if args.study == "lease":
        # kept under the checkout (ignored by git) so that a second command on a warm machine reuses its stages
        results = work / "gpu-lease" if args.dry_run else ROOT / "results" / "gpu-lease"
        gpu_lease.run_lease(runner, out=at.out, results=results, python=at.python, dry_run=args.dry_run,
                            started=t_start)  # fmt: skip
    elif args.study:
        run_check_study(runner, at)
    else:
        wanted = selected_steps(args.only)
        data_job = start_data(runner, at) if "train" in wanted else None
        run_device_steps(runner, at, wanted)
        if data_job is not None:
            run_train_and_export(runner, at, data_job)
    return write_summary(at.out, runner, args, time.perf_counter() - t_start)


def run_check_study(runner: Runner, at: Setting) -> None:
    """The gpu-check study (``gpu-check.yaml``) under :data:`STUDY_BUDGET`; its report beside the summary."""
    study_out = at.work / "study"
    config = str(ROOT / "tokstudy/study/configs/gpu-check.yaml")
    runner.command("study", [at.python, "-m", "tokstudy", "study", config, "-o", str(study_out)], STUDY_BUDGET)
    if (study_out / "report.md").is_file():
        shutil.copy2(study_out / "report.md", at.out / "study-report.md")


def start_data(runner: Runner, at: Setting) -> Background:
    """The background ``data`` step: a tokenizer and an example store from the carried text, on the CPU."""
    py, sizes, text = at.python, at.sizes, at.carry / "data" / at.sizes.text
    tok_dir = at.work / "tok"
    script = " && ".join(
        [
            f"{py} -m tokstudy train-tokenizer --input {text} --vocab-size {sizes.vocab} "
            f"--sample-size {sizes.sample} --output {tok_dir} --quiet",
            f"{py} -m pretrain prepare --config {ROOT / 'pretrain/configs/prepare_base.yaml'} "
            f"--input {text} --tokenizer {tok_dir / f'sp-unigram-{sizes.vocab}'} "
            f"--output {at.work / 'store'} --max-seq-length {sizes.seq} --max-predictions {sizes.predictions} "
            f"--max-examples {sizes.examples} --no-progress",
        ]
    )
    return runner.background("data", ["bash", "-c", script], DATA_BUDGET)


def run_device_steps(runner: Runner, at: Setting, wanted: set[str]) -> None:
    """The device's steps of ``wanted``, in order, each in its own process under its budget."""
    py, sizes, out, budgets = at.python, at.sizes, at.out, at.budgets
    if "attention" in wanted:
        attention = [py, str(ROOT / "benchmarks/bench_attention.py"), *sizes.attention]
        runner.command("attention", [*attention, "--json", str(out / "attention.json")], budgets["attention"])
    bench = [py, str(ROOT / "benchmarks/bench_pretrain.py"), "--sequential"]
    if "bench-512" in wanted:
        profile_dir = at.work / "profiles"
        runner.command(
            "bench-512",
            [*bench, *sizes.bench_512, "--json", str(out / "bench-512.json"), "--profile-dir", str(profile_dir)],
            budgets["bench-512"],
        )
        _merge_profiles(profile_dir, out / "profile.txt")
    if "pytest-gpu" in wanted:
        runner.command("pytest-gpu", _pytest_gpu(py, "tests/pretrain/test_gpu.py", out / "pytest-gpu.xml"),
                       budgets["pytest-gpu"])  # fmt: skip
    if "bench-128" in wanted:
        runner.command("bench-128", [*bench, *sizes.bench_128, "--json", str(out / "bench-128.json")],
                       budgets["bench-128"])  # fmt: skip
    if "pytest-finetune" in wanted:
        runner.command("pytest-finetune", _pytest_gpu(py, "tests/finetune/test_gpu.py", out / "pytest-finetune.xml"),
                       at.optional_budget("pytest-finetune"))  # fmt: skip
    if "bench-variants" in wanted:
        runner.command("bench-variants", [*bench, *sizes.bench_variants, "--json", str(out / "bench-variants.json")],
                       at.optional_budget("bench-variants"))  # fmt: skip


def _pytest_gpu(py: str, path: str, junit: Path) -> list[str]:
    return [py, "-m", "pytest", "-m", "gpu", path, "-rA", "-p", "no:cacheprovider", "--junitxml", str(junit)]


def run_train_and_export(runner: Runner, at: Setting, data_job: Background) -> None:
    """``train`` on the background step's store (once it is done), then ``export`` and a fill-mask on the export."""
    py, sizes, budgets = at.python, at.sizes, at.budgets
    tok_dir, run_dir, export_dir = at.work / "tok", at.work / "run", at.work / "export"
    if runner.wait("data", data_job).status != "ok":
        runner.skip("train", "no example store (the data step failed)", budgets["train"])
        runner.skip("export", "no training run", budgets["export"])
        return
    train_yaml = at.work / "train_check.yaml"
    write_train_config(train_yaml, sizes)
    runner.command(
        "train",
        [py, "-m", "pretrain", "train", "--model", sizes.model, "--train-config", str(train_yaml),
         "--data", str(at.work / "store"), "--tokenizer", str(tok_dir / f"sp-unigram-{sizes.vocab}"),
         "--output", str(run_dir), "--no-progress"],
        budgets["train"],
    )  # fmt: skip
    _copy_metrics(run_dir, at.out / "train-metrics.csv")
    script = (
        f"{py} -m pretrain export --checkpoint {run_dir} --output {export_dir} && "
        f"{py} {Path(__file__).resolve()} fill-mask {export_dir}"
    )
    runner.command("export", ["bash", "-c", script], budgets["export"])


#: The GPU steps in the order they run; ``--only`` picks some (a failed step re-run, say). ``export`` needs
#: ``train``'s run and ``train`` the background ``data`` step, so each brings the ones it needs.
STEPS = ("attention", "bench-512", "pytest-gpu", "bench-128", "train", "export")
OPTIONAL_STEPS = tuple(OPTIONAL_BUDGET)


def selected_steps(only: str | None) -> set[str]:
    """The steps ``--only`` names (comma-separated), with what they need; every step of :data:`STEPS` without it
    (the :data:`OPTIONAL_STEPS` only when named).

    >>> sorted(selected_steps("export,bench-128"))
    ['bench-128', 'export', 'train']
    """
    if not only:
        return set(STEPS)
    names = {name.strip() for name in only.split(",") if name.strip()}
    unknown = names - set(STEPS) - set(OPTIONAL_STEPS)
    if unknown:
        known = ", ".join((*STEPS, *OPTIONAL_STEPS))
        raise SystemExit(f"gpu-check: --only: unknown step(s) {', '.join(sorted(unknown))}; steps: {known}")
    return names | ({"train"} if "export" in names else set())


def write_train_config(path: Path, sizes: Sizes) -> None:
    """``train_base.yaml`` (GPU) or ``train_tiny.yaml`` (dry run), shortened: logs every 10 steps, one checkpoint."""
    import yaml

    from pretrain.config import CONFIG_DIR, TrainConfig

    base = "train_base.yaml" if sizes.model == "base" else "train_tiny.yaml"
    cfg = TrainConfig.load(CONFIG_DIR / base)
    cfg = cfg.replace(
        batch_size=sizes.batch,
        total_steps=sizes.train_steps,
        warmup_steps=max(1, sizes.train_steps // 10),
        log_every=max(1, sizes.train_steps // 5),
        checkpoint_every=sizes.train_steps,
    )
    path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def _merge_profiles(folder: Path, target: Path) -> None:
    files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if files:
        target.write_text("\n\n".join(f"===== {f.stem}\n{f.read_text()}" for f in files))


def _copy_metrics(run_dir: Path, target: Path) -> None:
    src = run_dir / "metrics.csv"
    if src.is_file():
        shutil.copy2(src, target)


def fill_mask(directory: str) -> int:
    """Load the export with the standard Hugging Face classes and fill one mask (as a user would)."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForMaskedLM.from_pretrained(directory)
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer)
    top = fill(f"The capital of France is {tokenizer.mask_token}.", top_k=3)
    print(json.dumps({"fill_mask_top3": [t["token_str"] for t in top], "model": type(model).__name__}))
    return 0


# -- the summary ------------------------------------------------------------------------------------


def environment(python: str, env: dict[str, str]) -> dict:
    """Versions and device as the steps saw them (asked of the same python, with the carried wheels)."""
    code = (
        "import json, platform, torch, transformers\n"
        "d = {'python': platform.python_version(), 'torch': torch.__version__, "
        "'transformers': transformers.__version__, 'cuda': torch.version.cuda}\n"
        "try:\n import deepspeed; d['deepspeed'] = deepspeed.__version__\n"
        "except Exception as e: d['deepspeed'] = f'not importable: {e}'\n"
        "d['device'] = torch.cuda.get_device_name() if torch.cuda.is_available() else 'cpu'\n"
        "d['capability'] = '.'.join(map(str, torch.cuda.get_device_capability())) "
        "if torch.cuda.is_available() else None\n"
        "print(json.dumps(d))\n"
    )
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        found = {"error": proc.stderr.strip()[-300:]}
    return {**found, "host": platform.node(), "cpus": os.cpu_count()}


def step_facts(out: Path, result: StepResult) -> dict:
    """What each step's outputs say: test outcomes, benchmark rows, the run's steady tokens/s and memory."""
    facts = dict(result.facts)
    if result.name.startswith("pytest-"):
        facts.update(_junit(out / f"{result.name}.xml"))
    elif result.name == "attention" and (out / "attention.json").is_file():
        facts["kernels"] = json.loads((out / "attention.json").read_text())
    elif result.name.startswith("bench-"):
        path, log = out / f"{result.name}.json", out / result.log
        if path.is_file():
            facts["rows"] = json.loads(path.read_text())
        elif log.is_file():  # stopped at its budget: the rows it printed as it measured them
            lines = log.read_text(errors="replace").splitlines()
            facts["rows"] = [json.loads(line) for line in lines if line.startswith('{"vocab"')]
    elif result.name == "train":
        facts.update(_train_facts(out))
    elif result.name == "export":
        log = (out / "export.log").read_text() if (out / "export.log").is_file() else ""
        lines = [line for line in log.splitlines() if line.startswith('{"fill_mask_top3"')]
        if lines:
            facts.update(json.loads(lines[-1]))
    log_path = out / result.log if result.log else None
    if log_path and log_path.is_file():
        text = log_path.read_text(errors="replace")
        if result.name in ("bench-512", "bench-128", "pytest-gpu", "train", "study"):
            facts["recompiles_logged"] = text.count("Recompiling function")
            facts["compile_fell_back"] = "TrainConfig.compile" in text
        if result.status != "ok":
            facts["log_tail"] = "\n".join(text.strip().splitlines()[-15:])
    return facts


def _junit(path: Path) -> dict:
    if not path.is_file():
        return {}
    import xml.etree.ElementTree as ET

    tests = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = child.tag
                tests[case.get("name")] = {"outcome": outcome, "message": (child.get("message") or "")[:300]}
                break
            if child.tag == "skipped":
                outcome = "skipped"
                tests[case.get("name")] = {"outcome": outcome, "message": (child.get("message") or "")[:200]}
                break
        else:
            tests[case.get("name")] = {"outcome": outcome, "seconds": float(case.get("time") or 0)}
    return {"tests": tests}


def _train_facts(out: Path) -> dict:
    path = out / "train-metrics.csv"
    if not path.is_file():
        return {}
    with path.open(newline="") as f:
        rows = [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(f)]
    steady = [r["tokens_per_s"] for r in rows[1:] if "tokens_per_s" in r]  # the first interval holds the compile
    facts = {"logged_steps": [int(r["step"]) for r in rows], "final_loss": rows[-1].get("loss") if rows else None}
    if steady:
        facts["steady_tokens_per_s"] = sorted(steady)[len(steady) // 2]
    memory = [r["max_memory_gib"] for r in rows if r.get("max_memory_gib") is not None]
    if memory:
        facts["max_memory_gib"] = max(memory)
    return facts


def write_summary(out: Path, runner: Runner, args, seconds: float) -> int:
    env = environment(runner.python, runner.env)
    cache = Path(runner.env.get("TORCHINDUCTOR_CACHE_DIR", "")) if runner.env.get("TORCHINDUCTOR_CACHE_DIR") else None
    files = [f for f in cache.rglob("*") if f.is_file()] if cache and cache.is_dir() else []
    env["compile_cache"] = {
        "path": str(cache),
        "files": len(files),
        "mib": sum(f.stat().st_size for f in files) / 2**20,
    }
    steps = [{**asdict(r), "facts": step_facts(out, r)} for r in runner.results]
    ok = all(s["status"] == "ok" for s in steps)
    summary = {
        "mode": ("dry run (CPU, toy sizes)" if args.dry_run else "gpu")
        + (f", {args.study} study" if args.study else ""),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": seconds,
        "environment": env,
        "steps": steps,
        "ok": ok,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    (out / "summary.md").write_text(render_markdown(summary))
    print((out / "summary.md").read_text())
    pack_outputs(out)
    return 0 if ok else 1


#: What the output folder keeps as files of its own; every other file (each step's log, JSON, profile) goes into
#: :data:`STEPS_TAR`. A device command brings back at most 8 files: the H100 lease of 2026-11-27 got 8 of its
#: 17 back, and summary.md was not among them.
LOOSE = ("summary.md", "summary.json", "lease.md", "lease-report.tar.gz")
STEPS_TAR = "steps.tar.gz"


def pack_outputs(out: Path) -> Path | None:
    """Move every file of ``out`` but :data:`LOOSE` into ``out/steps.tar.gz`` (kept when there is nothing to add)."""
    rest = [f for f in sorted(out.iterdir()) if f.is_file() and f.name not in (*LOOSE, STEPS_TAR)]
    if not rest:
        return None
    with tarfile.open(out / STEPS_TAR, "w:gz") as tar:
        for f in rest:
            tar.add(f, arcname=f.name)
    for f in rest:
        f.unlink()
    return out / STEPS_TAR


def render_markdown(summary: dict) -> str:
    env = summary["environment"]
    lines = [
        f"# gpu-check: {summary['mode']}, {summary['date']}",
        "",
        f"Device: **{env.get('device')}** (compute capability {env.get('capability')}), host {env.get('host')}, "
        f"{env.get('cpus')} CPUs. Python {env.get('python')}, torch {env.get('torch')} (CUDA {env.get('cuda')}), "
        f"transformers {env.get('transformers')}, deepspeed {env.get('deepspeed')}.",
        f"Whole command: {summary['seconds']:.0f} s. Result: **{'all steps ok' if summary['ok'] else 'NOT all ok'}**.",
        _cache_line(env.get("compile_cache")),
        "",
        "| step | status | seconds | budget s | log |",
        "|---|---|---:|---:|---|",
    ]
    for s in summary["steps"]:
        lines.append(f"| {s['name']} | {s['status']} | {s['seconds']:.0f} | {s['budget_s']} | {s['log']} |")
    for s in summary["steps"]:
        facts = s["facts"]
        lines += ["", f"## {s['name']}: {s['status']}", ""]
        if facts.get("why"):
            lines.append(f"Skipped: {facts['why']}.")
        if "tests" in facts:
            for name, t in facts["tests"].items():
                extra = f" ({t['seconds']:.1f} s)" if "seconds" in t else f": {t.get('message', '')}"
                lines.append(f"- `{name}`: {t['outcome']}{extra}")
        if "rows" in facts:
            lines += _bench_lines(facts["rows"])
        if "kernels" in facts:
            lines += _attention_lines(facts["kernels"])
        for key in ("steady_tokens_per_s", "max_memory_gib", "final_loss", "logged_steps", "fill_mask_top3", "model"):
            if key in facts:
                value = facts[key]
                lines.append(f"- {key}: {value:,.1f}" if isinstance(value, float) else f"- {key}: {value}")
        if "recompiles_logged" in facts:
            lines.append(
                f"- recompiles logged (TORCH_LOGS=recompiles): {facts['recompiles_logged']}; "
                f"compile fell back to eager: {'yes' if facts['compile_fell_back'] else 'no'}"
            )
        if facts.get("log_tail"):
            lines += ["", "```", facts["log_tail"], "```"]
    return "\n".join(lines) + "\n"


def _cache_line(cache: dict | None) -> str:
    if not cache:
        return ""
    return (
        f"torch.compile cache shared by the steps (`{cache['path']}`): {cache['files']} files, {cache['mib']:.1f} MiB "
        "at the end (a step's warm-up seconds below show whether it compiled or reused)."
    )


def _attention_lines(rows: list[dict]) -> list[str]:
    lines = [
        "",
        "| lengths | kernel | fwd ms | fwd+bwd ms | fwd TFLOP/s | bwd TFLOP/s | max diff vs first |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['lengths']} | {r['kernel']} | {r['error']} | | | | |")
            continue
        times = f"{r['forward_ms']:.2f} | {r['forward_backward_ms']:.2f}"
        rates = f"{r['forward_tflops']:.0f} | {r['backward_tflops']:.0f}"
        lines.append(f"| {r['lengths']} | {r['kernel']} | {times} | {rates} | {r['max_abs_diff']:.3g} |")
    return lines


def _bench_lines(rows: list[dict]) -> list[str]:
    lines = [
        "",
        "| vocab | seq | batch | variant | tokens/s | vs first | MFU | peak GiB | compiled | graphs | warm-up s | "
        "syncs/step | synchronize()/step |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]

    def fmt(value, spec):
        return "n/a" if value is None else format(value, spec)

    for r in rows:
        for v, rate in r["tokens_per_s"].items():
            comp = r.get("compile", {}).get(v, {})
            syncs = r.get("syncs", {}).get(v, {})
            mfu = r.get("mfu", {}).get(v)
            cells = [
                f"{r['vocab']:,}",
                str(r["seq"]),
                str(r["batch"]),
                v,
                r["errors"].get(v, "n/a") if rate is None else f"{rate:,.0f}",
                fmt(r["speedup"].get(v), ".2f"),
                fmt(None if mfu is None else 100 * mfu, ".1f"),
                fmt(r.get("max_memory_gib", {}).get(v), ".1f"),
                str(comp.get("compiled")),
                str(comp.get("graphs")),
                fmt(r.get("warmup_s", {}).get(v), ".1f"),
                fmt(syncs.get("syncs_per_step"), ".1f"),
                fmt(syncs.get("synchronize_calls_per_step"), ".1f"),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    for r in rows:
        for v, families in r.get("profile_ms_per_step", {}).items():
            parts = ", ".join(f"{family} {ms:.1f}" for family, ms in families.items())
            lines.append(f"\nWhere a step of {v} goes ({r['vocab']:,}, profiled, ms): {parts}.")
    for r in rows:
        for v, by_window in r.get("window_ms", {}).items():
            parts = ", ".join(f"{n} step{'' if n == '1' else 's'} {ms:.1f}" for n, ms in by_window.items())
            lines.append(
                f"\nms per step of {v} ({r['vocab']:,}) in windows of back-to-back steps: {parts} "
                "(the longest window's step no faster than the shortest's: the device waits in every step; "
                "faster: the wait is at each window's start)."
            )
    return lines


# -- command line -----------------------------------------------------------------------------------


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="fill the carried folder (wheels, data slice) and check it")
    prep.add_argument("--carry", default=str(CARRY))
    prep.add_argument("--data", default=os.environ.get("TOKSTUDY_DATA") or str(ROOT.parent / "shared" / "data"))
    run = sub.add_parser("run", help="run the check (on the GPU machine, or --dry-run on CPU)")
    run.add_argument("--out", default=os.environ.get("OUT") or str(ROOT / "results" / "gpu-check"))
    run.add_argument("--carry", default=str(CARRY))
    run.add_argument("--python", default=sys.executable, help="the interpreter that runs every step")
    run.add_argument("--dry-run", action="store_true", help="CPU, toy sizes: the same steps, the same commands")
    run.add_argument(
        "--study",
        nargs="?",
        const="check",
        choices=("check", "lease"),
        help="instead: the gpu-check study (`--study`, <= 5 minutes) or the one-lease study (`--study lease`, "
        "<= 9 minutes: benchmarks/gpu_lease.py)",
    )
    run.add_argument(
        "--only",
        default=None,
        metavar="STEP[,STEP]",
        help=f"run only these steps (of {', '.join((*STEPS, *OPTIONAL_STEPS))})",
    )
    fm = sub.add_parser("fill-mask", help=argparse.SUPPRESS)
    fm.add_argument("directory")
    args = p.parse_args(argv)
    if args.command == "prepare":
        carry = Path(args.carry)
        prepare_wheels(carry / "wheels")
        prepare_data(Path(args.data), carry / "data")
        problems = check_carry(carry)
        for problem in problems:
            print(f"[gpu-wheels] {problem}", file=sys.stderr)
        print(f"[gpu-wheels] {carry}: {_tree_bytes(carry) / 2**20:.1f} MiB, wheels and data for the GPU check")
        return 1 if problems else 0
    if args.command == "fill-mask":
        return fill_mask(args.directory)
    return run_check(args)


if __name__ == "__main__":
    sys.exit(main())
