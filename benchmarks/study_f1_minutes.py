"""F1 against minutes from a finished study's own records: what each training run scored and what it took.

Reads ``<results>/.stages/*.json`` (each stage's wall seconds and outputs, written by the study) and prints,
per task, one row per tokenizer and kind of model (pre-trained / no-pre-training control): test score
(mean ± sd over seeds), dev score, epochs run, minutes per fine-tuning run and the pre-training minutes of
that tokenizer's model; then the stages' minutes in all (what the end-to-end time is made of).

With ``--lease`` (what ``benchmarks/gpu_lease.py`` writes as ``lease.md``) it adds, before that table, what the
pre-trainer and fine-tuner logged for themselves: per vocabulary the pre-training's steps, training minutes,
tokens/s and final MLM accuracy (``pretrain/<tok>/run/metrics.csv``), the fine-tuning's steps and windows a second
(``seed-<N>/metrics.json``), and the F1-against-pre-training-minutes curve (the final models and the points of
``curve/points.json``, each at the training minutes its checkpoint had).

    python benchmarks/study_f1_minutes.py results/cpu
    python benchmarks/study_f1_minutes.py --lease results/gpu-lease
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from pretrain.logging_ import read_metrics


def _records(root: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / ".stages").glob("*.json"))]


def _mean_sd(values: list[float]) -> str:
    if len(values) < 2:
        return f"{values[0]:.2f}" if values else "-"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def table(root: Path) -> str:
    records = _records(root)
    pretrain_min = {r["name"].split("/", 1)[1]: r["seconds"] / 60 for r in records if r["name"].startswith("pretrain/")}
    runs: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        kind, _, rest = r["name"].partition("/")
        if kind not in ("finetune", "finetune-control"):
            continue
        tokenizer, task, _seed = rest.split("/")
        runs[(task, tokenizer, kind)].append(r)
    lines = []
    for task in sorted({k[0] for k in runs}):
        lines += [
            f"**{task}**",
            "",
            "| tokenizer | weights | test score (mean ± sd) | dev score (mean) | epochs run | minutes per run"
            " (mean) | pre-training minutes |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for (t, tokenizer, kind), rs in sorted(runs.items()):
            if t != task:
                continue
            outs = [r["outputs"] for r in rs]
            dev = [o["dev_score"] for o in outs if o.get("dev_score") is not None]
            epochs = [o["epochs_run"] for o in outs if o.get("epochs_run") is not None]
            pre = f"{pretrain_min[tokenizer]:.1f}" if kind == "finetune" and tokenizer in pretrain_min else "0"
            lines.append(
                f"| {tokenizer} | {'pre-trained' if kind == 'finetune' else 'from scratch (control)'} "
                f"| {_mean_sd([o['score'] for o in outs])} | {statistics.mean(dev):.2f} "
                f"| {'-'.join(sorted({f'{e:g}' for e in epochs}))} "
                f"| {statistics.mean(r['seconds'] for r in rs) / 60:.2f} | {pre} |"
            )
        lines.append("")
    by_kind: dict[str, float] = defaultdict(float)
    for r in records:
        by_kind[r["name"].split("/")[0]] += r["seconds"]
    lines += ["| stages | runs | minutes (sum of stage wall times) |", "|---|---:|---:|"]
    for kind, seconds in by_kind.items():
        n = sum(1 for r in records if r["name"].split("/")[0] == kind)
        lines.append(f"| {kind} | {n} | {seconds / 60:.1f} |")
    return "\n".join(lines)


def _metrics_rows(run_dir: Path) -> list[dict]:
    """The pre-training's logged rows (``pretrain.logging_.read_metrics``); none when the run logged nothing."""
    return read_metrics(run_dir) if (run_dir / "metrics.csv").is_file() else []


def _at_step(rows: list[dict], step: int) -> dict:
    """The logged row of ``step`` (the last one at or before it); empty when nothing was logged by then."""
    before = [r for r in rows if r.get("step", 0) <= step]
    return before[-1] if before else {}


def pretraining(root: Path) -> list[dict]:
    """Per pre-trained tokenizer: steps, training-loop minutes, median logged tokens/s and the last logged MLM
    accuracy and loss (the logged step's batch), from ``pretrain/<tok>/run/metrics.csv``; stage minutes beside."""
    stages = {r["name"].split("/", 1)[1]: r for r in _records(root) if r["name"].startswith("pretrain/")}
    out = []
    for tok, record in sorted(stages.items(), key=lambda kv: _by_size(kv[0])):
        rows = _metrics_rows(root / "pretrain" / tok / "run")
        last = rows[-1] if rows else {}
        rates = sorted(r["tokens_per_s"] for r in rows[1:] if "tokens_per_s" in r)  # the first holds the start
        out.append(
            {
                "tokenizer": tok,
                "steps": int(last.get("step", 0)),
                "train_minutes": last.get("elapsed_s", 0.0) / 60,
                "stage_minutes": record["seconds"] / 60,
                "tokens_per_s": rates[len(rates) // 2] if rates else None,
                "mlm_accuracy": last.get("mlm_accuracy"),
                "loss": last.get("loss"),
            }
        )
    return out


def finetuning(root: Path) -> list[dict]:
    """Per fine-tuning stage: test and dev score, epochs, the training loop's steps a second and windows a second
    (dev evaluations included), from the seed's own ``metrics.json``."""
    out = []
    for r in _records(root):
        kind, _, rest = r["name"].partition("/")
        if kind not in ("finetune", "finetune-control"):
            continue
        seeds = sorted((root / r["name"]).glob("seed-*/metrics.json"))
        train = json.loads(seeds[0].read_text()).get("train", {}) if seeds else {}
        seconds = train.get("seconds") or 0.0
        items = (train.get("train_items") or 0) * (train.get("epochs_run") or 0)
        out.append(
            {
                "stage": r["name"],
                "score": r["outputs"].get("score"),
                "dev_score": r["outputs"].get("dev_score"),
                "epochs_run": r["outputs"].get("epochs_run"),
                "stage_seconds": r["seconds"],
                "steps_per_s": train["steps"] / seconds if seconds else None,
                "windows_per_s": items / seconds if seconds else None,
                "device": train.get("device"),
            }
        )
    return out


def curve(root: Path) -> list[dict]:
    """F1 against pre-training minutes: every final model (from its stage) and every point of ``curve/points.json``
    (an intermediate checkpoint, or step 0: the initial weights), at the training-loop minutes of its step."""
    finals = {r["name"].split("/")[1]: r["outputs"] for r in _records(root) if r["name"].startswith("finetune/")}
    points = []
    for tok, outs in finals.items():
        rows = _metrics_rows(root / "pretrain" / tok / "run")
        if rows:
            points.append({"tokenizer": tok, "step": int(rows[-1]["step"]), **_scores(outs)})
    path = root / "curve" / "points.json"
    for p in json.loads(path.read_text()) if path.is_file() else []:
        points.append({"tokenizer": p["tokenizer"], "step": p["step"], **_scores(p)})
    for p in points:
        row = _at_step(_metrics_rows(root / "pretrain" / p["tokenizer"] / "run"), p["step"])
        p["minutes"] = row.get("elapsed_s", 0.0) / 60 if p["step"] else 0.0
        p["mlm_accuracy"] = row.get("mlm_accuracy") if p["step"] else None
    return sorted(points, key=lambda p: (_by_size(p["tokenizer"]), p["step"]))


def _by_size(tokenizer: str) -> tuple:
    """Order tokenizers by vocabulary size, as the study names them (``sp-unigram-1500`` before ``sp-unigram-2k``).

    >>> sorted(["sp-unigram-2k", "sp-unigram-1500", "sp-unigram-1k"], key=_by_size)
    ['sp-unigram-1k', 'sp-unigram-1500', 'sp-unigram-2k']
    """
    algorithm, _, size = tokenizer.rpartition("-")
    number = int(size[:-1]) * 1000 if size.endswith("k") and size[:-1].isdigit() else int(size) if size.isdigit() else 0
    return (algorithm, number, tokenizer)


def _scores(outputs: dict) -> dict:
    return {"score": outputs.get("score"), "dev_score": outputs.get("dev_score")}


def _cell(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def lease_tables(root: Path) -> str:
    """The pre-trainings, the fine-tunings, the curve and the stages' times, as Markdown (``lease.md``)."""
    lines = [
        "## Pre-training (per vocabulary)",
        "",
        "| tokenizer | steps | training minutes | stage minutes | tokens/s (median logged) | final MLM accuracy "
        "| final loss |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in pretraining(root):
        lines.append(
            f"| {p['tokenizer']} | {p['steps']} | {p['train_minutes']:.2f} | {p['stage_minutes']:.2f} "
            f"| {_cell(p['tokens_per_s'], ',.0f')} | {_cell(p['mlm_accuracy'], '.3f')} | {_cell(p['loss'], '.3f')} |"
        )
    lines += [
        "",
        "## Fine-tuning",
        "",
        "| stage | test score | dev score | epochs run | stage seconds | steps/s | windows/s | device |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for f in finetuning(root):
        lines.append(
            f"| {f['stage']} | {_cell(f['score'], '.2f')} | {_cell(f['dev_score'], '.2f')} "
            f"| {_cell(f['epochs_run'], 'g')} | {f['stage_seconds']:.1f} | {_cell(f['steps_per_s'], '.1f')} "
            f"| {_cell(f['windows_per_s'], ',.0f')} | {f['device']} |"
        )
    lines += [
        "",
        "## F1 against pre-training minutes",
        "",
        "| tokenizer | step | training minutes | MLM accuracy at the step | test F1 | dev F1 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for p in curve(root):
        lines.append(
            f"| {p['tokenizer']} | {p['step']} | {p['minutes']:.2f} | {_cell(p['mlm_accuracy'], '.3f')} "
            f"| {_cell(p['score'], '.2f')} | {_cell(p['dev_score'], '.2f')} |"
        )
    lines += ["", "## Every stage", "", "| stage | seconds |", "|---|---:|"]
    lines += [f"| {r['name']} | {r['seconds']:.1f} |" for r in _records(root)]
    return "\n".join(lines + ["", "## F1 and minutes per run", "", table(root)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, help="a study's results folder (e.g. results/cpu)")
    ap.add_argument("--lease", action="store_true", help="also the pre-trainings, fine-tunings and the curve")
    args = ap.parse_args()
    print(lease_tables(args.results) if args.lease else table(args.results))


if __name__ == "__main__":
    main()
