"""Start-up of the command line: ``tokstudy --help`` and ``tokstudy stats`` on a 3-sentence file, per tree.

``--help`` lists the commands from a table and imports none of their modules, so it pays for the package's
``__init__`` and the dispatcher only; ``stats`` on a tiny input is the cost of reaching the library (readers,
tokenizer, table, statistics) with almost no work. Each TREE is a checkout's root (default: this one); an older tree
is compared by running its ``tokstudy.cli`` from its own folder (``git archive COMMIT tokstudy | tar -x -C TREE``),
in the same ``hyperfine`` run, interleaved, so every tree sees the same load. Without ``hyperfine`` (``apt install
hyperfine``), each command runs ``--runs`` times in a loop, timed here.

    python benchmarks/bench_cli_startup.py --runs 20 /tmp/before .
    python benchmarks/bench_cli_startup.py --cpu --runs 8 --command-help study /tmp/before .
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (a sibling script module)

CONLL = "John B-PER\nlives O\nin O\nParis B-LOC\n. O\n\nMary B-PER\nSmith I-PER\nworks O\n. O\n\nThe O\nSeine B-LOC\n"
WORDS = "the a river city people work live John Mary Paris London Acme company flows north south east west".split()


def fixture(folder: Path) -> tuple[Path, Path]:
    """A 3-sentence CoNLL file and a 40-piece SentencePiece model trained on generated text."""
    import sentencepiece as spm  # deferred: only to build the fixture, once

    rng = random.Random(0)
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(2000)) + "\n")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(folder / "tiny"), vocab_size=40, model_type="unigram", minloglevel=2
    )
    conll = folder / "tiny.conll"
    conll.write_text(CONLL, encoding="utf-8")
    return conll, folder / "tiny.model"


def commands(trees: list[Path], conll: Path, model: Path, helps: Sequence[str] = ()) -> dict[str, list[str]]:
    """Label -> argv: ``--help``, ``stats`` and ``COMMAND --help`` of each of ``helps``, for each tree, run from
    the tree's root so its ``tokstudy`` wins."""
    stats = ["stats", "-d", str(conll), "-t", str(model), "--resamples", "0", "--no-progress"]
    code = "import sys; from tokstudy.cli import main; sys.exit(main(sys.argv[1:]))"
    out = {}
    runs = [(["--help"], "--help"), (stats, "stats"), *(([c, "--help"], f"{c} --help") for c in helps)]
    for args, what in runs:
        for tree in trees:
            out[f"{what} ({tree})"] = ["bash", "-c", 'cd "$0" && exec "$1" -c "$2" "${@:3}"', str(tree)]
            out[f"{what} ({tree})"] += [sys.executable, code, *args]
    return out


def run_loop(cmds: dict[str, list[str]], runs: int) -> None:
    """Each command ``runs`` times after one warm-up, round-robin; mean and min wall seconds."""
    times: dict[str, list[float]] = {label: [] for label in cmds}
    for i in range(runs + 1):
        for label, argv in cmds.items():
            start = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            if i:
                times[label].append(time.perf_counter() - start)
    for label, ts in times.items():
        print(f"{label}: mean {statistics.mean(ts) * 1000:.1f} ms, min {min(ts) * 1000:.1f} ms ({runs} runs)")


def run_cpu(cmds: dict[str, list[str]], runs: int) -> None:
    """Each command ``runs`` times after one warm-up, round-robin; median and min CPU time (user + sys of the
    child), which compares better than wall time on a machine shared with other jobs."""
    times: dict[str, list[float]] = {label: [] for label in cmds}
    for i in range(runs + 1):
        for label, argv in cmds.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(argv, check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if i:
                times[label].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    for label, ts in times.items():
        print(f"{label}: CPU median {statistics.median(ts) * 1000:.0f} ms, min {min(ts) * 1000:.0f} ms ({runs} runs)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=[str(ROOT)], help="checkout roots to compare (default: this)")
    parser.add_argument("--runs", type=int, default=10, help="runs per command (default 10)")
    parser.add_argument(
        "--command-help", action="append", default=[], metavar="COMMAND", help="also time `COMMAND --help` (repeat)"
    )
    parser.add_argument("--cpu", action="store_true", help="CPU time of each run (getrusage) instead of wall time")
    args = parser.parse_args()
    print(runinfo.describe(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        cmds = commands([Path(t).resolve() for t in args.trees], *fixture(Path(tmp)), args.command_help)
        if args.cpu:
            run_cpu(cmds, args.runs)
        elif shutil.which("hyperfine"):
            hyperfine = ["hyperfine", "-N", "--warmup", "2", "--runs", str(args.runs)]
            for label, argv in cmds.items():
                hyperfine += [f"--command-name={label}", " ".join(f"'{a}'" for a in argv)]
            subprocess.run(hyperfine, check=True)
        else:
            run_loop(cmds, args.runs)
    print(runinfo.load_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
