"""The GPU check's steps (:data:`gpu_check_plan.STEPS`): install the carried wheels, the background data step, the
device's benchmarks and tests, then train, export and fill a mask; or, instead, the gpu-check study. Each step is
one command under its budget (:class:`gpu_runner.Runner`); one failure never stops the others.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from gpu_carry import CARRIED
from gpu_check_plan import DATA_BUDGET, OPTIONAL_BUDGET, OPTIONAL_DRY_BUDGET, STUDY_BUDGET, Sizes
from gpu_runner import Background, Runner, StepResult
from gpu_versions import install_snippet

ROOT = Path(__file__).resolve().parent.parent


def install(runner: Runner, carry: Path, site: Path, budget: int, *, dry_run: bool, versions: Path) -> StepResult:
    """The carried wheels into ``site`` (no index, no network), then every carried module imported from there; the
    same process writes the versions the summary gives to ``versions`` (:func:`gpu_versions.install_snippet`).

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
        + install_snippet("sys.argv[4]")
        + "bad = [m for m, f in found.items() if m in own.split(',') and not f.startswith(site)]\n"
        "sys.exit(f'not imported from the carried wheels: {bad}' if bad else 0)\n"
    )
    pip = [runner.python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile", "--no-cache-dir"]
    script = (
        f"{' '.join(pip)} --upgrade --target {site} {' '.join(map(str, wheels))} && "
        f"{runner.python} -c {_quote(code)} {','.join(CARRIED.values())} {site} {','.join(from_site)} {versions}"
    )
    return runner.command("install", ["bash", "-c", script], budget, wheels=[w.name for w in wheels])


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


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
    export = [py, str(ROOT / "benchmarks/gpu_check.py"), "export", "--checkpoint", str(run_dir), "--output",
              str(export_dir)]  # fmt: skip
    runner.command("export", export, budgets["export"])


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


def export_and_fill_mask(checkpoint: str, directory: str) -> int:
    """The ``export`` step in one process: ``pretrain export`` of ``checkpoint`` into ``directory`` (the command a
    user types, run here), then :func:`fill_mask` on the export; one import of torch and transformers for both."""
    from pretrain.cli import main as pretrain

    status = pretrain(["export", "--checkpoint", checkpoint, "--output", directory])
    return status or fill_mask(directory)


def fill_mask(directory: str) -> int:
    """Load the export with the standard Hugging Face classes and fill one mask (as a user would)."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForMaskedLM.from_pretrained(directory)
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer)
    top = fill(f"The capital of France is {tokenizer.mask_token}.", top_k=3)
    print(json.dumps({"fill_mask_top3": [t["token_str"] for t in top], "model": type(model).__name__}))
    return 0
