"""The study's training runs one at a time on every core (``jobs: 1``) or side by side (``jobs: 2``).

Runs the same fine-tuning stages twice through ``StageRunner.run_many`` (the code ``tokstudy study`` runs), in
fresh results folders: ``--runs`` CoNLL-2003 NER runs (seeds 0..runs-1) of a study model from random weights
(the no-pre-training control of the given preset and tokenizer), first with ``jobs=1`` (torch's default
threads, every core), then with ``jobs=2`` (two spawned processes, cores / 2 threads each). Prints the wall
time of each and checks that both give the same scores up to float rounding.

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_study_jobs.py --tokenizer results/cpu/tokenizers/sp-unigram-8k
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", required=True, help="a study tokenizer folder (tokenizers/<name>)")
    ap.add_argument("--model", default="tiny", help="model preset (default tiny)")
    ap.add_argument("--runs", type=int, default=4, help="fine-tuning runs (seeds) per setting")
    ap.add_argument("--max-train", type=int, default=3000, help="CoNLL-2003 training sentences per run")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()

    from pretrain.study_backend import PretrainBackend
    from tokstudy.study import stage_bodies
    from tokstudy.study.config import FinetuneSection, PretrainSection, StudyConfig, TaskSpec
    from tokstudy.study.outcomes import BuiltTokenizer, FinetuneOutcome, ModelBuilt, TokenizersBuilt
    from tokstudy.study.sources import resolve_sources
    from tokstudy.study.stages import Stage, StageRunner

    task = TaskSpec("conll2003", "ner", max_train=args.max_train, max_eval=1000, epochs=args.epochs)
    config = StudyConfig(
        name="bench-jobs",
        pretrain=PretrainSection(model=args.model),
        finetune=FinetuneSection(tasks=(task,), seeds=args.runs, learning_rate=3e-3, patience=args.epochs),
    )
    backend = PretrainBackend(cuda=False)
    print(f"# {runinfo.describe(torch=True)}", flush=True)
    print(
        f"# {args.runs} CoNLL-2003 runs, {args.model} from random weights,",
        f"{args.max_train} sentences x {args.epochs} epochs",
    )
    scores = {}
    for jobs in args.jobs:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            sources = resolve_sources({"conll2003"}, root, data_dir=None, allow_sample=False)
            pipe = StageRunner(root, log=lambda m: None)
            tokenizer = Path(args.tokenizer).resolve()
            built = TokenizersBuilt((BuiltTokenizer("tok", 0, os.path.relpath(tokenizer, root), 0),))
            pipe.run("tokenizers", {}, lambda work: built, codec=TokenizersBuilt)  # the given tokenizer
            control = pipe.run_many(
                [
                    Stage(
                        "control/tok",
                        {},
                        partial(stage_bodies.control_stage, root=root, tokenizer="tok", backend=backend, config=config),
                        ("tokenizers",),
                        ModelBuilt,
                    )
                ]
            )
            stages = [
                Stage(
                    f"finetune/seed{seed}",
                    {"seed": seed},
                    partial(
                        stage_bodies.finetune_stage,
                        root=root,
                        model_stage="control/tok",
                        task=task,
                        seed=seed,
                        backend=backend,
                        config=config,
                        sources=sources,
                        progress=False,
                    ),
                    deps=("control/tok",),
                    codec=FinetuneOutcome,
                )
                for seed in range(args.runs)
            ]
            assert control
            start = time.perf_counter()
            out = pipe.run_many(stages, jobs=jobs)
            wall = time.perf_counter() - start
        scores[jobs] = [round(o.score, 2) for o in out]
        print(f"jobs={jobs}: {wall:.1f} s wall, {wall / args.runs:.1f} s per run, test F1 {scores[jobs]}")
    first = scores[args.jobs[0]]
    for jobs, s in scores.items():
        gap = max(abs(a - b) for a, b in zip(first, s))
        print(f"jobs={jobs}: largest F1 difference from jobs={args.jobs[0]}: {gap:.2f}")


if __name__ == "__main__":
    main()
    print(f"# {runinfo.load_line()}")
