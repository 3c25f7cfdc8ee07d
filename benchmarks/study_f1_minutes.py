"""F1 against minutes from a finished study's own records: what each training run scored and what it took.

Reads ``<results>/.stages/*.json`` (each stage's wall seconds and outputs, written by the study) and prints,
per task, one row per tokenizer and kind of model (pre-trained / no-pre-training control): test score
(mean ± sd over seeds), dev score, epochs run, minutes per fine-tuning run and the pre-training minutes of
that tokenizer's model; then the stages' minutes in all (what the end-to-end time is made of).

    python benchmarks/study_f1_minutes.py results/cpu
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, help="a study's results folder (e.g. results/cpu)")
    print(table(ap.parse_args().results))


if __name__ == "__main__":
    main()
