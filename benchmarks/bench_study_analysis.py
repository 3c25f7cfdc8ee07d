"""Benchmark: the study's analysis + report stages alone, and ``tokstudy stats``, for any checkout.

It checks that ``tokstudy stats`` and the study are no slower with the study's report in
``tokstudy.report`` (one segmentation table, two bootstrap passes instead of 1 + K + 6K).
Both are timed in fresh processes running the code of ``--repo`` (``PYTHONPATH=<repo>``), so the
same command measures before (a checkout of the old commit) and after:

* **study analysis**: a finished tiny study (``tests/study/tiny_study.yaml``: 3 tokenizers, 2 analysis
  datasets, CoNLL-2003 NER and SNIPS fine-tuned with 2 seeds and the no-pre-training control) is
  copied, its ``analysis`` and ``report`` stage records are deleted, and
  ``tokstudy study <repo>/tests/study/tiny_study.yaml --output <copy>`` reruns just those two stages
  (every other stage is reused). Reported: the two stages' own seconds (as the pipeline records
  them in ``.stages/*.json``) and the command's wall time (imports and cache checks included).
* **tokstudy stats**: ``tokstudy stats -d conll2003:test -t sp8k -t sp16k -t sp32k`` (1,000
  resamples), the three SentencePiece models of ``bench_stats.py`` (trained once, cached).

``--statistics`` mode, in this checkout only: the statistics of the study's analysis at the scale of the
``cpu`` configuration (its 10 analysis datasets, the three SentencePiece models of ``bench_stats.py``,
1,000 resamples), the way the study once computed them (the first dataset segmented on its
own, then Table 4, one summary per tokenizer and one ``additional_segmentation_by`` per tokenizer,
grouping and subset: 1 + K + 6K bootstrap passes, all datasets segmented again) against the way it does
now (one table, ``select``, ``table_statistics`` and ``breakdowns``: two passes); interleaved rounds,
wall and CPU time, and a check that both give the same figures.

The tiny study's results are built once with ``--repo``'s code if ``--results`` does not exist
(several minutes: it trains and fine-tunes tiny models).

Usage::

    TOKSTUDY_DATA=../shared/data python benchmarks/bench_study_analysis.py --repo . --repeat 5
    TOKSTUDY_DATA=../shared/data python benchmarks/bench_study_analysis.py --repo /tmp/before --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

HERE = Path(__file__).resolve().parent
DEFAULT_RESULTS = Path(tempfile.gettempdir()) / "tokstudy_bench_tiny_study"


def _env(repo: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(repo), OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    env.setdefault("TOKSTUDY_DATA", str(repo / ".." / "shared" / "data"))
    return env


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], repo: Path) -> tuple[float, float]:
    """Run ``cmd`` with ``repo``'s code; returns its wall and CPU (user + system) seconds."""
    cpu0, t0 = _cpu_of_children(), time.perf_counter()
    res = subprocess.run(cmd, env=_env(repo), capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _cpu_of_children() - cpu0
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}")
    return wall, cpu


def _study(repo: Path, output: Path) -> tuple[float, float]:
    """Run (or resume) the tiny study with ``repo``'s code; returns its wall and CPU seconds."""
    config = repo / "tests" / "study" / "tiny_study.yaml"
    return _timed([sys.executable, "-m", "tokstudy", "study", str(config), "--output", str(output), "-q"], repo)


def bench_study(repo: Path, results: Path, repeat: int) -> dict[str, list[float]]:
    """Rerun the analysis and report stages of a copy of ``results`` ``repeat`` times."""
    if not (results / ".stages" / "analysis.json").is_file():
        print(f"building the tiny study's results in {results} (once) ...", flush=True)
        _study(repo, results)
    times: dict[str, list[float]] = {"analysis": [], "report": [], "wall": [], "cpu": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "tiny"
            shutil.copytree(results, copy)
            for stage in ("analysis", "report"):
                (copy / ".stages" / f"{stage}.json").unlink()
            shutil.rmtree(copy / "tables", ignore_errors=True)
            wall, cpu = _study(repo, copy)
            times["wall"].append(wall)
            times["cpu"].append(cpu)
            records = {s: json.loads((copy / ".stages" / f"{s}.json").read_text()) for s in ("analysis", "report")}
            for s in ("analysis", "report"):
                times[s].append(float(records[s]["seconds"]))
    return times


def bench_stats(repo: Path, repeat: int, resamples: int) -> dict[str, list[float]]:
    """Wall and CPU seconds of ``tokstudy stats`` on CoNLL-2003 test with three tokenizers, a fresh process each run."""
    sys.path.insert(0, str(HERE))
    from bench_stats import train_models  # the cached 8k / 16k / 32k unigram models

    models = train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm")
    cmd = [sys.executable, "-m", "tokstudy", "stats", "-d", "conll2003:test", "--no-progress"]
    cmd += [a for m in models.values() for a in ("-t", str(m))] + ["--resamples", str(resamples)]
    out: dict[str, list[float]] = {"wall": [], "cpu": []}
    for _ in range(repeat):
        wall, cpu = _timed(cmd, repo)
        out["wall"].append(wall)
        out["cpu"].append(cpu)
    return out


CPU_DATASETS = (
    ("conll2003", "test", None),
    ("conll2003", "dev", None),
    ("conll2002_es", "test", None),
    *(("wikiann", "test", lang) for lang in ("de", "en", "es", "nl", "pl", "ru")),
    ("ner_ja_wikipedia", "test", None),
)


def bench_statistics(repeat: int, resamples: int) -> list[str]:
    """The statistics of the study on the cpu configuration's datasets: 1 + K + 6K passes against two."""
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    from bench_stats import train_models

    from tokstudy.analysis.stats import (
        additional_segmentation_by,
        compare_tokenizers,
        segmentation_summary,
        table_statistics,
    )
    from tokstudy.analysis.stats.estimates import BootstrapSettings
    from tokstudy.analysis.stats.segmentation import breakdowns
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.analysis.table.coverage import UnknownPiecesWarning
    from tokstudy.data.registry import load_dataset
    from tokstudy.tokenization.loading import load_tokenizer

    warnings.simplefilter("ignore", UnknownPiecesWarning)  # the Japanese dataset under English-trained models
    segs = [
        load_tokenizer(m, name=m.stem)
        for m in train_models(Path(tempfile.gettempdir()) / "tokstudy_bench_spm").values()
    ]
    names = [s.name for s in segs]
    datasets = [load_dataset(n, split, language=lang) for n, split, lang in CPU_DATASETS]
    boot = {"bootstrap": BootstrapSettings(resamples, seed=0)}
    groupings, subsets = ("entity_type", "language", "dataset"), ("ne", "non_ne")

    def before():
        primary = segmentation_table(datasets[:1], segs, progress=False)
        t4 = compare_tokenizers(primary, **boot)
        summaries = [segmentation_summary(primary, n, **boot) for n in names]
        full = segmentation_table(datasets, segs, progress=False)
        by = {
            g: [additional_segmentation_by(full, n, by=g, subset=s, **boot) for n in names for s in subsets]
            for g in groupings
        }
        return t4, summaries, by, len(full)

    def after():
        full = segmentation_table(datasets, segs, progress=False)
        stats = table_statistics(full.select(dataset=full.datasets[0]), names, groupings=(), intrinsic=False, **boot)
        by = breakdowns(full, names, groupings=groupings, subsets=subsets, **boot)
        return stats.table4, stats.summary, by, len(full)

    times: dict[str, dict[str, list[float]]] = {"before": {"wall": [], "cpu": []}, "after": {"wall": [], "cpu": []}}
    results = {}
    for _ in range(repeat):
        for name, fn in (("before", before), ("after", after)):
            c0, t0 = time.process_time(), time.perf_counter()
            results[name] = fn()
            times[name]["wall"].append(time.perf_counter() - t0)
            times[name]["cpu"].append(time.process_time() - c0)
    same = results["before"][:3] == results["after"][:3]
    rows = [
        f"{results['after'][3]:,} words in {len(datasets)} datasets, {len(names)} tokenizers, {resamples} resamples"
    ]
    rows.append(f"figures identical before and after: {same}\n")
    rows.append("| measurement | best | median | runs |\n|---|---:|---:|---:|")
    for name, label in (
        ("before", "1 + K + 6K passes, first dataset segmented twice"),
        ("after", "one table, two passes"),
    ):
        rows.append(_line(f"{label} (wall s)", times[name]["wall"]))
        rows.append(_line(f"{label} (CPU s)", times[name]["cpu"]))
    return rows


def _line(name: str, values: list[float]) -> str:
    return f"| {name} | {min(values):.2f} | {statistics.median(values):.2f} | {len(values)} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=HERE.parent, help="checkout whose code runs (default: this one)")
    ap.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="a finished tiny study (built if absent)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best and median reported)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of `tokstudy stats`")
    ap.add_argument("--no-stats", action="store_true", help="time the study's stages only")
    ap.add_argument("--statistics", action="store_true", help="the study's statistics before / after, cpu datasets")
    args = ap.parse_args()
    print(runinfo.describe(), flush=True)
    if args.statistics:
        rows = bench_statistics(args.repeat, args.resamples)
        print("\n".join(rows))
        return
    repo = args.repo.resolve()
    study = bench_study(repo, args.results.resolve(), args.repeat)
    rows = [
        _line("study: analysis stage (s, as recorded)", study["analysis"]),
        _line("study: report stage (s, as recorded)", study["report"]),
        _line("study: `tokstudy study` rerunning both (wall s)", study["wall"]),
        _line("study: `tokstudy study` rerunning both (CPU s, user + system)", study["cpu"]),
    ]
    if not args.no_stats:
        stats = bench_stats(repo, args.repeat, args.resamples)
        rows.append(_line("`tokstudy stats` conll2003:test, 3 tokenizers (wall s)", stats["wall"]))
        rows.append(_line("`tokstudy stats` conll2003:test, 3 tokenizers (CPU s)", stats["cpu"]))
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    print(f"repo {repo} ({head.stdout.strip() or 'not a git checkout'})\n")
    print("| measurement | best | median | runs |\n|---|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
