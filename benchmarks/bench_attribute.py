"""Benchmark: ``tokstudy attribute`` on CoNLL-2003 test with 3 tokenizers (target <= 3 s on 2 cores).

Three SentencePiece unigram vocabularies (8k / 16k / 32k, the ones ``bench_stats.py`` trains and
caches under ``$TMPDIR/tokstudy_bench_spm``); predictions for the 46,435 test words from a
deterministic rule (a hashed share of words, growing with length and inside entities, is
mislabelled: no fine-tuned model is needed to time the regression); word frequencies from
``conll2003:train``.

Measured: the command end to end in a fresh process (``python -m tokstudy attribute ...``:
imports, statsmodels included, reading test and train, the table, alignment, 3 x 3 logistic fits,
output), interleaved rounds, wall and CPU time (user + system of the child and of its fit process);
then the phases in process. By default the command fits in a second process that imports statsmodels
while the first reads (:mod:`tokstudy.analysis.model_errors.fit_worker`); ``--compare`` alternates each run with
one of the same command with ``--no-fit-process`` (everything in one process, as before) and reports
both and their pairwise differences; ``--before TREE`` adds the command run from another source tree.

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_attribute.py [--repeat 5] [--compare]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (sibling script modules)
from spm_models import tokenizer_specs, train_models  # noqa: E402

from tests.fixtures_predictions import write_rule_predictions as write_predictions  # noqa: E402
from tokstudy.data.registry import load_dataset  # noqa: E402


def write_rule_predictions(path: Path) -> int:
    """Rule predictions for CoNLL-2003 test (``tests.fixtures_predictions``); returns the number of words."""
    test = load_dataset("conll2003", "test")
    write_predictions(path, test, metadata={"dataset": "conll2003", "split": "test"})
    return sum(len(s.words) for s in test.sentences)


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="end-to-end runs (best and median reported)")
    ap.add_argument(
        "--compare", action="store_true", help="alternate each run with one with --no-fit-process (in process)"
    )
    ap.add_argument(
        "--before",
        default=None,
        metavar="TREE",
        help="also alternate with the command run from another source tree (e.g. a `git archive` of an older commit)",
    )
    return ap.parse_args()


def command_variants(args, models: dict[int, Path], preds: Path, tmp: Path) -> dict[str, tuple[list, dict, Path]]:
    """Name (``""`` for the command as shipped) -> (argv, environment, working directory) of each variant timed."""
    toks = [x for spec in tokenizer_specs(models) for x in ("-t", spec)]
    command = "attribute -d conll2003:test --train-dataset conll2003:train --no-progress".split()
    cmd = [sys.executable, "-m", "tokstudy", *command, *toks, "-p", str(preds), "--json", str(tmp / "a.json")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if "TOKSTUDY_DATA" in env:  # the other tree runs from its own root (``-m`` puts the working directory first)
        env["TOKSTUDY_DATA"] = str(Path(env["TOKSTUDY_DATA"]).resolve())
    variants = {"": (cmd, env, ROOT)}
    if args.compare:
        variants[" `--no-fit-process`"] = (cmd + ["--no-fit-process"], env, ROOT)
    if args.before:
        tree = Path(args.before).resolve()
        variants[f" from {args.before}"] = (cmd, {**env, "PYTHONPATH": str(tree)}, tree)
    return variants


def end_to_end(variants: dict, repeat: int) -> tuple[dict, dict, list[float]]:
    """Wall and CPU seconds of each variant per round (interleaved, alternating order), and the 1-minute
    load average before and after the rounds."""
    wall = {k: [] for k in variants}
    cpu = {k: [] for k in variants}
    load = [os.getloadavg()[0]]
    for i in range(repeat):
        order = list(variants) if i % 2 == 0 else list(variants)[::-1]
        for k in order:
            t, c = time.perf_counter(), child_cpu()
            command, environ, cwd = variants[k]
            subprocess.run(command, check=True, env=environ, cwd=cwd, stdout=subprocess.DEVNULL)
            wall[k].append(time.perf_counter() - t)
            cpu[k].append(child_cpu() - c)
    load.append(os.getloadavg()[0])
    return wall, cpu, load


def in_process_phases(models: dict[int, Path], preds: Path) -> dict[str, float]:
    """Seconds of each phase of the command, in process, one run (imports warm after the first)."""
    phases = {}
    t = time.perf_counter()
    import statsmodels.discrete.discrete_model  # noqa: F401 (the phase measured: its first import)

    phases["import statsmodels (first time in this process)"] = time.perf_counter() - t
    # imported after the timed import, so that what it loads first (numpy, ...) counts in its phase, as before
    from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
    from tokstudy.analysis.model_errors.attribution import attribute_errors, word_counts
    from tokstudy.analysis.model_errors.predictions import read_predictions
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.inputs import load_datasets, load_tokenizers

    t = time.perf_counter()
    test, train = load_datasets(["conll2003:test", "conll2003:train"])
    counts = word_counts(train)
    phases["read test + train, count training words"] = time.perf_counter() - t
    t = time.perf_counter()
    table = segmentation_table([test], load_tokenizers(tokenizer_specs(models)), progress=False)
    aligned = align_predictions(table, read_predictions(preds))
    phases["table (3 tokenizers) + read and align predictions"] = time.perf_counter() - t
    t = time.perf_counter()
    for name in table.tokenizer_names:
        attribute_errors(table, aligned, name, train=counts)
    phases["3 x attribute_errors (3 logistic fits + partial r + bins each)"] = time.perf_counter() - t
    return phases


def report(args, n_words: int, variants: dict, wall: dict, cpu: dict, load: list[float], phases: dict) -> str:
    flags = f"--repeat {args.repeat}" + (" --compare" if args.compare else "")
    flags += f" --before {args.before}" if args.before else ""
    lines = [
        f"Command: `TOKSTUDY_DATA=../shared/data python benchmarks/bench_attribute.py {flags}`",
        "",
        f"CoNLL-2003 test ({n_words:,} words) x SentencePiece unigram 8k/16k/32k, frequencies from conll2003:train, "
        "rule-made predictions.",
        "",
        "| what | best (s) | median (s) |",
        "|---|---:|---:|",
    ]
    for k in variants:
        lines += [
            f"| `tokstudy attribute`{k} end to end, fresh process, wall | {min(wall[k]):.2f} | "
            f"{statistics.median(wall[k]):.2f} |",
            f"| same, CPU time (user + system) | {min(cpu[k]):.2f} | {statistics.median(cpu[k]):.2f} |",
        ]
    for k in list(variants)[1:]:
        diff = [x - y for x, y in zip(wall[""], wall[k])]
        lines.append(
            f"| wall, `tokstudy attribute` minus{k}, pairwise (best / median) | {min(diff):+.2f} | "
            f"{statistics.median(diff):+.2f} |"
        )
    lines += [
        "",
        f"Load average (1 min) at start / end of the end-to-end runs: {load[0]:.1f} / {load[1]:.1f}.",
        "",
        "Phases, in process (one run):",
        "",
        "| phase | s |",
        "|---|---:|",
    ] + [f"| {k} | {v:.2f} |" for k, v in phases.items()]
    return "\n".join(lines)


def main() -> None:
    args = parse_args()
    print(runinfo.describe(), flush=True)
    models = train_models()
    tmp = Path(tempfile.mkdtemp())
    preds = tmp / "preds.tsv"
    n_words = write_rule_predictions(preds)
    variants = command_variants(args, models, preds, tmp)
    wall, cpu, load = end_to_end(variants, args.repeat)
    print(report(args, n_words, variants, wall, cpu, load, in_process_phases(models, preds)))


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
