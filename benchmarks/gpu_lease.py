"""The one-lease study: the paper's vocabularies, ALBERT-base pre-trained on the GPU, CoNLL-2003 F1 and the full
report, in one command of at most 9 minutes on one H100 (``make gpu-check STUDY=lease``; docs/gpu.md).

What runs, each part under its own time limit inside :data:`LEASE_SECONDS` (``benchmarks/gpu_check.py`` calls
:func:`run_lease` after installing the carried wheels):

1. ``study``: ``tokstudy study gpu-lease.yaml`` into ``results/gpu-lease`` (kept between commands on a warm
   machine: a second command reuses every finished stage and goes on where the first stopped). Should the carried
   text not give a vocabulary size, the study runs again with the largest size it gives, and the summary says so.
2. ``curve``: F1 against pre-training minutes for the first vocabulary: its intermediate checkpoints and its
   random initial weights fine-tuned as the study fine-tunes, as many as the time left allows
   (``python benchmarks/gpu_lease.py curve``); each point is kept as it finishes.
3. ``lease.md``: per vocabulary the pre-training's steps, minutes, tokens/s and final MLM accuracy, the test and
   dev F1, the fine-tuning rate, the curve, and the time of every stage (:mod:`study_f1_minutes`).
4. the report folder packed into one ``lease-report.tar.gz`` (the output folder brings back at most 8 files).

The CPU dry run (``make gpu-check DRY_RUN=1 STUDY=lease``) runs the same configuration at toy sizes
(:func:`toy_config`) through the same commands.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import study_f1_minutes  # noqa: E402 (a script module of benchmarks/)

CONFIG = ROOT / "tokstudy/study/configs/gpu-lease.yaml"
#: The whole command on one H100, the install included (the issue: one command of at most 9 minutes).
LEASE_SECONDS = 540
#: Kept back from the study for the summary and the packing (both read files only: about a second).
RESERVE_SECONDS = 15
#: Below this many seconds left, no further curve point is started (one fine-tuning of the lease config).
CURVE_POINT_SECONDS = 40
#: The dry run's limits on CPU (toy sizes, a loaded 2-core machine).
DRY_SECONDS = 600
#: The curve's points, in the order they are run while time is left: a share of the pre-training steps (0: the
#: random initial weights, the no-pre-training point); the nearest kept checkpoint stands for each share.
CURVE_SHARES = (0.4, 0.0, 0.8, 0.2, 0.6)
#: What the packed report holds: the report, its tables and figures, every stage's record, the pre-trainings'
#: metrics, the fine-tunings' metrics and predictions, the curve (never stores, checkpoints or weights).
PACKED_SUFFIXES = {".md", ".html", ".json", ".csv", ".png", ".svg", ".tsv"}
SKIPPED_FOLDERS = {"examples", "checkpoints", "final_model", "model", "random_init", "sample_data"}
PACK_LIMIT_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Rates:
    """The planning figures, each measured on the H100 of 2026-11-27 unless said otherwise (docs/gpu.md)."""

    install_s: float = 7.0
    """``install`` step of ``make gpu-check``."""
    tokenizer_s: float = 15.0
    """One unigram vocabulary on 100,000 sentences, 16 cores: not measured on the H100; here a 128k one took 19 s on
    60,000 sentences on 2 busy cores, so 15 s on 16 cores is an estimate with room."""
    prepare_tokens_per_s: float = 480_000.0
    """``pretrain prepare`` (the gpu-check study's three stores: 441k-583k tokens a second)."""
    pretrain_tokens_per_s: float = 350_000.0
    """ALBERT-base, eager, sequence 128 (the gpu-check study: 22-26 steps a second of 128 x 128)."""
    tokens_per_example: float = 122.0
    """Real tokens of a sequence-128 example (the gpu-check study's stores: 2.45M tokens in 20,000 examples)."""
    pretrain_overhead_s: float = 15.0
    """Per pre-training: the engine's start, five checkpoints and the export (not measured separately)."""
    finetune_steps_per_s: float = 80.0
    """Fine-tuning steps of batch 64 a second on the GPU after the changes of docs/finetune.md: not measured; 25 a
    second at batch 32 before them. The estimate assumes a launch-bound eager step of about 12 ms."""
    finetune_overhead_s: float = 12.0
    """Per fine-tuning: loading, segmenting the splits, scoring dev at each epoch and test once, writing."""
    report_s: float = 40.0
    """The report stage (bootstrap, tables, figures): not measured on the GPU machine."""


def plan(config: dict, rates: Rates = Rates(), *, conll_windows: int = 14_100) -> dict[str, float]:
    """Seconds each part of the lease should take for ``config`` (the YAML as a dict) at ``rates``.

    >>> cfg = {"tokenizers": {"vocab_sizes": [1, 2]},
    ...        "pretrain": {"total_steps": 10, "batch_size": 2, "max_examples": 4},
    ...        "finetune": {"epochs": 1, "batch_size": 4, "tasks": [{}]}}
    >>> p = plan(cfg, Rates(pretrain_tokens_per_s=1.0, tokens_per_example=1.0, pretrain_overhead_s=0.0))
    >>> p["pretrain"], p["tokenizers"]
    (40.0, 30.0)
    """
    k = len(config["tokenizers"]["vocab_sizes"])
    pre, fine = config["pretrain"], config["finetune"]
    tokens = pre["total_steps"] * pre["batch_size"] * rates.tokens_per_example
    store_tokens = pre["max_examples"] * rates.tokens_per_example
    steps = -(-conll_windows // fine["batch_size"]) * fine["epochs"]
    finetune_s = steps / rates.finetune_steps_per_s + rates.finetune_overhead_s
    return {
        "install": rates.install_s,
        "tokenizers": k * rates.tokenizer_s,
        "prepare": k * store_tokens / rates.prepare_tokens_per_s,
        "pretrain": k * (tokens / rates.pretrain_tokens_per_s + rates.pretrain_overhead_s),
        "finetune": k * len(fine["tasks"]) * finetune_s,
        "report": rates.report_s,
    }


def toy_config(config: dict) -> dict:
    """``config`` at toy sizes for the CPU dry run: the same sections, tasks, decoding and analysis; small
    vocabularies, the tiny model, a few steps and sentences."""
    toy = json.loads(json.dumps(config))
    toy["name"] = "gpu-lease-dry-run"
    # 2,000 sentences give the 2,000 pieces with room (3,000 took half as long again)
    toy["tokenizers"].update(vocab_sizes=[1000, 1500, 2000], sample_size=2000, languages=["en", "es"])
    toy["pretrain"].update(
        model="tiny", total_steps=20, batch_size=8, warmup_steps=2, max_examples=200, languages=["es"]
    )
    toy["finetune"].update(epochs=1, batch_size=16)
    toy["finetune"]["tasks"] = [{**t, "max_train": 200, "max_eval": 100} for t in toy["finetune"]["tasks"]]
    toy["analysis"].update(bootstrap=20, n_examples=2)
    return toy


def fallback_sizes(log_text: str, sizes: list[int]) -> tuple[list[int], int] | None:
    """The vocabulary sizes to try again when the study's log says a size is more than the text gives: each size
    above the largest possible becomes that (rounded down to a thousand); ``None`` when the log says nothing of it.

    >>> fallback_sizes("... Ask for a vocabulary size <= 101532, or give more text", [32000, 64000, 128000])
    ([32000, 64000, 101000], 101532)
    """
    found = re.findall(r"Ask for a vocabulary size <= (\d+)", log_text)
    if not found:
        return None
    limit = int(found[-1])
    largest = limit // 1000 * 1000 if limit >= 1000 else limit
    return sorted({min(v, largest) for v in sizes}), limit


# -- the lease, step by step (called by gpu_check.py) --------------------------------------------------------------


def run_lease(runner, *, out: Path, results: Path, python: str, dry_run: bool, started: float) -> None:
    """The study, the curve, ``lease.md`` and the packed report, each within what is left of the lease."""
    limit = DRY_SECONDS if dry_run else LEASE_SECONDS
    results.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load(CONFIG.read_text())
    if dry_run:
        config = toy_config(config)
    notes = _run_study(runner, config, results=results, python=python, deadline=started + limit - RESERVE_SECONDS)
    left = started + limit - RESERVE_SECONDS - time.perf_counter()
    point = 5.0 if dry_run else point_seconds(results)
    curve = [python, str(Path(__file__).resolve()), "curve", str(results), "--seconds", f"{max(0.0, left):.0f}"]
    if (results / "report.md").is_file() and left >= point:
        runner.command("curve", [*curve, "--point-seconds", f"{point:.0f}"], int(left) + 5)
    else:
        runner.skip("curve", f"{max(0.0, left):.0f} s left of the lease, or the study did not finish", int(left))
    write_lease_summary(results, out, notes=notes)
    pack(results, out / "lease-report.tar.gz")


def point_seconds(results: Path) -> float:
    """What one curve point should take: the longest of the study's own fine-tunings, at least
    :data:`CURVE_POINT_SECONDS`."""
    return max([CURVE_POINT_SECONDS, *(f["stage_seconds"] for f in study_f1_minutes.finetuning(results))])


def _run_study(runner, config: dict, *, results: Path, python: str, deadline: float) -> list[str]:
    """Run the study under what is left before ``deadline``; once more with smaller vocabularies if the carried text
    cannot give a size. Returns the notes for the summary (the fallback, said plainly)."""
    notes: list[str] = []
    path = results / "gpu-lease.yaml"
    for attempt in (1, 2):
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        argv = [python, "-m", "tokstudy", "study", str(path), "-o", str(results), "--no-sample"]
        budget = int(deadline - time.perf_counter())
        step = runner.command("study" if attempt == 1 else "study-fallback", argv, max(1, budget))
        log = (runner.out / step.log).read_text(errors="replace") if (runner.out / step.log).is_file() else ""
        fallback = fallback_sizes(log, config["tokenizers"]["vocab_sizes"]) if step.status == "failed" else None
        if fallback is None or attempt == 2:
            return notes
        sizes, limit = fallback
        notes.append(
            f"The carried text gives at most {limit:,} unigram pieces, so the vocabularies "
            f"{config['tokenizers']['vocab_sizes']} became {sizes} (the largest rounded down to a thousand)."
        )
        config = {**config, "tokenizers": {**config["tokenizers"], "vocab_sizes": sizes}}
    return notes


def write_lease_summary(results: Path, out: Path, *, notes: list[str]) -> Path:
    """``lease.md`` into ``results`` and ``out``: the curve, the pre-trainings' MLM accuracy and every stage's time
    (:func:`study_f1_minutes.lease_tables`), after the notes."""
    lines = ["# The one-lease study", ""]
    lines += [f"**{n}**" for n in notes] + ([""] if notes else [])
    if not (results / ".stages").is_dir():
        lines.append("No stage finished (see study.log).")
    else:
        lines.append(study_f1_minutes.lease_tables(results))
    text = "\n".join(lines) + "\n"
    (results / "lease.md").write_text(text)
    (out / "lease.md").write_text(text)
    return out / "lease.md"


def pack(results: Path, target: Path) -> Path:
    """The report, tables, figures, stage records and metrics of ``results`` in one gzip tar (predictions dropped if
    the whole would pass the 16 MiB a returned file may have)."""
    chosen = [
        f
        for f in sorted(results.rglob("*"))
        if f.is_file() and f.suffix in PACKED_SUFFIXES and not SKIPPED_FOLDERS & set(f.relative_to(results).parts[:-1])
    ]
    if sum(f.stat().st_size for f in chosen) > PACK_LIMIT_BYTES:  # text compresses, but keep to the limit uncompressed
        chosen = [f for f in chosen if f.suffix != ".tsv"]
    with tarfile.open(target, "w:gz") as tar:
        for f in chosen:
            tar.add(f, arcname=str(Path(results.name) / f.relative_to(results)))
    return target


# -- the curve (its own process: it needs torch) -------------------------------------------------------------------


def curve_points(run_dir: Path, shares=CURVE_SHARES) -> list[tuple[float, int]]:
    """``(share, step)`` for each share of the kept checkpoints of ``run_dir`` (step 0: the initial weights), the
    nearest checkpoint below the last step standing for a share; each step once.

    >>> import tempfile; d = Path(tempfile.mkdtemp())
    >>> for s in (140, 280, 420, 560, 700): (d / "checkpoints" / f"step_{s:08d}").mkdir(parents=True)
    >>> curve_points(d, (0.4, 0.0, 0.8, 0.5))
    [(0.4, 280), (0.0, 0), (0.8, 560)]
    """
    steps = sorted(int(p.name[5:]) for p in (run_dir / "checkpoints").glob("step_*") if p.name[5:].isdigit())
    if not steps:
        return []
    last, inner = steps[-1], steps[:-1]
    chosen: list[tuple[float, int]] = []
    for share in shares:
        step = 0 if share == 0 else min(inner, key=lambda s: abs(s - share * last), default=None)
        if step is not None and step not in {s for _, s in chosen}:
            chosen.append((share, step))
    return chosen


def run_curve(
    results: Path, *, seconds: float, point_seconds: float = CURVE_POINT_SECONDS, started: float | None = None
) -> list[dict]:
    """Fine-tune the first vocabulary's intermediate checkpoints and its initial weights as the study fine-tunes,
    while ``seconds`` last from ``started`` (a ``perf_counter`` time; default: now); each point goes to
    ``<results>/curve/points.json`` as it finishes."""
    t0 = time.perf_counter() if started is None else started
    from pretrain.export import export_checkpoint
    from pretrain.study_backend import PretrainBackend
    from tokstudy.study.backends import FinetuneRequest
    from tokstudy.study.config import load_study_config
    from tokstudy.study.sources import resolve_sources
    from tokstudy.study.stage_bodies import tokenizer_name
    from tokstudy.study.tasks import task_splits

    cfg = load_study_config(results / "gpu-lease.yaml")
    tokenizer = tokenizer_name(cfg.tokenizers.algorithm, cfg.tokenizers.vocab_sizes[0])
    run_dir = results / "pretrain" / tokenizer / "run"
    task = cfg.finetune.tasks[0]
    splits, _ = task_splits(task, resolve_sources({task.dataset}, results, allow_sample=False))
    backend, folder = PretrainBackend(), results / "curve"
    points = _read_points(folder)
    done = {p["step"] for p in points}
    for share, step in curve_points(run_dir):
        if step in done:
            continue
        if time.perf_counter() - t0 + point_seconds > seconds:
            print(f"[curve] {seconds - (time.perf_counter() - t0):.0f} s left: no further point", flush=True)
            break
        work = folder / f"step-{step}"
        if step == 0:
            model_dir = backend.untrained_model(work, results / "tokenizers" / tokenizer, cfg.pretrain)
        else:
            model_dir = export_checkpoint(run_dir / "checkpoints" / f"step_{step:08d}", work / "model")
        start = time.perf_counter()
        request = FinetuneRequest(model_dir, task, splits, seed=0, section=task.settings(cfg.finetune))
        run = backend.finetune(work / "finetune", request, progress=False)
        point = {"tokenizer": tokenizer, "step": step, "share": share, "score": run.score, "dev_score": run.dev_score}
        points.append({**point, "epochs_run": run.epochs_run, "finetune_seconds": time.perf_counter() - start})
        (folder / "points.json").write_text(json.dumps(points, indent=2))
        print(f"[curve] {json.dumps(points[-1])}", flush=True)
    return points


def _read_points(folder: Path) -> list[dict]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "points.json"
    return json.loads(path.read_text()) if path.is_file() else []


def main(argv=None) -> int:
    started = time.perf_counter()  # the imports of torch and the study count against the curve's seconds
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("curve", help="fine-tune the first vocabulary's intermediate checkpoints while time lasts")
    c.add_argument("results", type=Path)
    c.add_argument("--seconds", type=float, required=True)
    c.add_argument("--point-seconds", type=float, default=CURVE_POINT_SECONDS)
    args = p.parse_args(argv)
    run_curve(args.results, seconds=args.seconds, point_seconds=args.point_seconds, started=started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
