"""What the GPU check runs and how long each step may take: the sizes of the GPU run and of its CPU dry run, each
step's budget, the steps in their order and which of them ``--only`` picks.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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


#: The compile variants beside ours, run only when asked (``--only bench-variants``): each compiles
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
#: the toy pre-training benchmark of the dry run: the tiny model, 2 timed steps
TOY_BENCH = ["--model", "tiny", "--vocab", "3000", "--seq", "64", "--batch", "8", "--steps", "2", "--warmup", "1"]
DRY = Sizes(
    attention=["--batch", "4", "--seq", "64", "--heads", "2", "--head-dim", "16", "--iters", "2", "--warmup", "1"],
    bench_512=[*TOY_BENCH, "--window-check"],
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
    sample=1000,  # sentences the tokenizer learns from: plenty for 600 pieces (3,000 took 2.5 times as long)
    text="raw_text_large/es.txt.gz",  # the smallest of the six: the store's reader goes through all it is given
    seq=64,
    predictions=10,
    examples=8 * 8,
    model="tiny",
    train_steps=6,
    batch=8,
    bench_variants=[*TOY_BENCH, *VARIANTS],
)
#: Each step's time limit in seconds on one H100/H200 (the whole command: at most 8 minutes, install included).
#: Sized on the H100 of 2026-11-27 (cold compiles of ALBERT-base: about 60 s a graph) with the H200's runs of
#: 2026-11-26 beside: install 7 s; attention within 25; bench-512 over 200 (32k done: the HF loop 15.5 s of
#: warm-up, ours 60.3 s of compile; 128k still compiling); pytest-gpu within 80 (its first test 58.7 s of compile);
#: bench-128 just over 75 (57.8 s of compile); train and export within 45 and 40 (H200: 32 and 27 s). Four graphs
#: (32k and 128k at 512 x 128, the tests', 128 x 256) compile cold once each; the shared compile cache
#: (:data:`gpu_runner.COMPILE_CACHE_ENV`) lets ``train`` reuse bench-512's 32k graph. bench-512 no longer runs the HF
#: loop at 128k (out of memory even on the H200's 141 GB) nor the window check (answered on the H100: 106.5 / 101.6 /
#: 102.0 ms a step in windows of 1 / 5 / 20: the device waits in every step; ``bench_pretrain.py --window-check`` keeps
#: it).
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
