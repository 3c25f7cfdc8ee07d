"""The demo study's training runs three ways on one machine: serially, ``--jobs 2``, and ``--cluster local:2``.

The tokenizers are trained once, first (the same stage for every engine, run in the study's own process); then
``tokstudy study CONFIG`` runs three times in fresh results folders that start from those tokenizers, each time
timed end to end (pre-training, control, fine-tuning, analysis, report): ``--jobs 1`` (one run at a time on every
core), ``--jobs 2`` (the local process pool, two spawned processes with cores / 2 threads) and ``--cluster local:2``
(two Dask worker processes with the same threads, each run a task asking for ``GPU=1``). Prints the wall times,
their ratios to ``--jobs 2`` and whether the three reports' scores are equal. One run each: the machine is shared,
so the load averages printed before and after say how much others weighed on the figures.

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_study_cluster.py            # the demo study
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: the engines compared, as ``tokstudy study`` options; the two side-by-side engines first, back to back, so that
#: the machine's load weighs on their ratio alike
ENGINES = {"jobs 2": ["--jobs", "2"], "cluster local:2": ["--cluster", "local:2"], "serial": ["--jobs", "1"]}


class TokenizersOnly:
    """A trainer that stops the study at its first training run: what is left behind is the tokenizers stage."""

    class Stop(Exception):
        pass

    def pretrain(self, *args, **kwargs):
        raise self.Stop

    def untrained_model(self, *args, **kwargs):
        raise self.Stop

    def finetune(self, *args, **kwargs):
        raise self.Stop


def train_tokenizers(config_name: str, folder: Path) -> float:
    """Run the study into ``folder`` up to its first training run (jobs 1, in this process); seconds taken."""
    from tokstudy.study.config import load_study_config
    from tokstudy.study.pipeline import run_study

    config = load_study_config(config_name, output_dir=str(folder), jobs=1)
    start = time.perf_counter()
    try:
        run_study(config, backend=TokenizersOnly(), log=lambda m: None, progress=False)
    except TokenizersOnly.Stop:
        pass
    return time.perf_counter() - start


def seed_folder(prepared: Path, folder: Path) -> None:
    """A results folder holding only what ``prepared`` has before training: the tokenizers (and the sample)."""
    folder.mkdir(parents=True)
    for name in ("tokenizers", "sample_data", "task_text"):
        if (prepared / name).is_dir():
            shutil.copytree(prepared / name, folder / name)
    (folder / ".stages").mkdir()
    for record in ("tokenizers.json", "task_text.json"):
        if (prepared / ".stages" / record).is_file():
            shutil.copy2(prepared / ".stages" / record, folder / ".stages" / record)


def run_engine(config_name: str, folder: Path, options: list[str]) -> tuple[float, str]:
    """``tokstudy study`` with ``options`` into ``folder``: wall seconds and its output."""
    command = [sys.executable, "-m", "tokstudy", "study", config_name, "-o", str(folder), "-q", *options]
    start = time.perf_counter()
    res = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return wall, res.stdout


def scores(folder: Path) -> str:
    """The report's scores table, as written (equal strings: equal scores)."""
    return json.dumps(json.loads((folder / "tables" / "scores.json").read_text()), sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", nargs="?", default="demo", help="a shipped study configuration (default demo)")
    ap.add_argument("--engines", nargs="+", choices=list(ENGINES), default=list(ENGINES), help="in this order")
    ap.add_argument(
        "--tokenizers-from",
        metavar="FOLDER",
        help="a results folder of the same configuration whose tokenizers stage is reused (not trained again)",
    )
    args = ap.parse_args()
    print(f"# {runinfo.describe(torch=True)}", flush=True)
    data = os.environ.get("TOKSTUDY_DATA")
    print(f"# tokstudy study {args.config}, engines: {', '.join(args.engines)}; TOKSTUDY_DATA={data}")
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(args.tokenizers_from or Path(tmp) / "prepared")
        if args.tokenizers_from:
            print(f"tokenizers: reused from {prepared}")
        else:
            print(f"tokenizers (once, shared): {train_tokenizers(args.config, prepared):.1f} s", flush=True)
        walls, tables = {}, {}
        for name in args.engines:
            options = ENGINES[name]
            folder = Path(tmp) / name.replace(" ", "-").replace(":", "")
            seed_folder(prepared, folder)
            walls[name], out = run_engine(args.config, folder, options)
            tables[name] = scores(folder)
            dashboard = [line for line in out.splitlines() if line.startswith("dask dashboard")]
            extra = f" ({dashboard[0]})" if dashboard else ""
            print(f"{name}: {walls[name]:.1f} s wall (training runs, analysis, report){extra}", flush=True)
    base = walls.get("jobs 2")
    if base:
        print("ratio to --jobs 2: " + ", ".join(f"{n} {w / base:.3f}" for n, w in walls.items()))
    same = len(set(tables.values())) == 1
    print(f"scores.json equal across the engines: {same}")


if __name__ == "__main__":
    main()
    print(f"# {runinfo.load_line()}")
