"""Tables like the paper's Tables 1 (slot filling F1) and 2 (classification accuracy).

One table per metric; rows are datasets (``dataset`` or ``dataset-language``), columns
are models in the order given. A cell is ``mean ± std`` over seeds (in percent); the
best mean of a row is **bold**; ``*`` marks a model whose per-seed scores differ from
the reference model's (the first column, or ``reference=``) with Welch's p < 0.05.
The CSV is long-format (one line per row × model, with n, p-value and the per-seed
values), the JSON holds the same records.

>>> runs = [{"model_name": "a", "dataset": "snips", "language": "en", "metric": "f1", "task": "ner",
...          "summary": {"f1": {"values": [0.90, 0.91, 0.92]}}},
...         {"model_name": "b", "dataset": "snips", "language": "en", "metric": "f1", "task": "ner",
...          "summary": {"f1": {"values": [0.80, 0.81, 0.82]}}}]
>>> print(to_markdown(build_tables(runs)).splitlines()[4])
| snips | **91.00 ± 1.00** | 81.00 ± 1.00* |
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tokstudy.analysis.stats.welch import Summary, significance_mark, summarize, welch_p
from tokstudy.fileio import atomic_write_text

TITLES = {
    "f1": "Slot filling / NER: entity F1 (seqeval), mean ± std over seeds",
    "accuracy": "Classification: accuracy, mean ± std over seeds",
}


@dataclass(frozen=True)
class Cell:
    """One model on one dataset."""

    summary: Summary
    p_value: float  # vs the reference model; nan for the reference itself or when undefined
    mark: str
    best: bool
    source: str = ""


@dataclass(frozen=True)
class ResultsTable:
    """A metric's table: ``cells[(row, model)]``; a missing pair is a run that was not given."""

    metric: str
    rows: tuple[str, ...]
    models: tuple[str, ...]
    reference: str
    cells: dict

    def records(self) -> list[dict]:
        out = []
        for row in self.rows:
            for model in self.models:
                c = self.cells.get((row, model))
                if c is None:
                    continue
                out.append(
                    {
                        "metric": self.metric,
                        "dataset": row,
                        "model": model,
                        "mean": c.summary.mean,
                        "std": c.summary.std,
                        "n": c.summary.n,
                        "reference": self.reference,
                        "p_value": None if math.isnan(c.p_value) else c.p_value,
                        "significant": bool(c.mark),
                        "best": c.best,
                        "values": list(c.summary.values),
                        "run": c.source,
                    }
                )
        return out


def row_key(run: dict) -> str:
    """``dataset`` or ``dataset-language`` for multilingual corpora (language differs from the default)."""
    lang = run.get("language")
    single = {"conll2003": "en", "conll2002_es": "es", "snips": "en", "atis": "en", "sst2": "en"}
    return run["dataset"] if single.get(run["dataset"]) == lang else f"{run['dataset']}-{lang}"


def build_tables(
    runs: Sequence[dict], *, reference: str | None = None, sources: Sequence[str] | None = None
) -> list[ResultsTable]:
    """Group finished runs (``run.json`` contents) into one table per metric."""
    if not runs:
        raise ValueError("no runs to compare")
    sources = list(sources) if sources is not None else [""] * len(runs)
    by_metric: dict[str, dict] = {}
    models: list[str] = []
    for run, src in zip(runs, sources):
        metric, model, row = run["metric"], run["model_name"], row_key(run)
        if model not in models:
            models.append(model)
        table = by_metric.setdefault(metric, {})
        if (row, model) in table:
            raise ValueError(
                f"{src or model}: a second run of model {model!r} on {row!r} (first: {table[(row, model)][1] or model})"
            )
        table[(row, model)] = (run["summary"][metric]["values"], src)
    if reference is not None and reference not in models:
        raise ValueError(f"reference model {reference!r} is not among the runs' models {models}")
    ref = reference or models[0]
    tables = []
    for metric, found in by_metric.items():
        rows = tuple(dict.fromkeys(r for r, _ in found))
        cols = tuple(m for m in models if any((r, m) in found for r in rows))
        cells = {}
        for row in rows:
            present = {m: summarize(found[(row, m)][0]) for m in cols if (row, m) in found}
            top = max(s.mean for s in present.values())
            for m, s in present.items():
                p = math.nan if m == ref or (row, ref) not in found else welch_p(s.values, found[(row, ref)][0])
                cells[(row, m)] = Cell(s, p, significance_mark(p), s.mean == top, found[(row, m)][1])
        tables.append(ResultsTable(metric, rows, cols, ref, cells))
    return tables


def to_markdown(tables: Sequence[ResultsTable]) -> str:
    """The tables as Markdown, with a legend."""
    parts = []
    for t in tables:
        lines = [
            f"### {TITLES.get(t.metric, t.metric)}",
            "",
            "| dataset | " + " | ".join(t.models) + " |",
            "|---|" + "---|" * len(t.models),
        ]
        for row in t.rows:
            cells = []
            for m in t.models:
                c = t.cells.get((row, m))
                text = "–" if c is None else c.summary.format()
                cells.append("–" if c is None else (f"**{text}**" if c.best else text) + c.mark)
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        n = sorted({c.summary.n for c in t.cells.values()})
        lines += [
            "",
            f"Percent, mean ± sample std over {'/'.join(map(str, n))} seeds. Bold: best mean. "
            f"`*`: Welch's t-test vs {t.reference}, p < 0.05.",
            "",
        ]
        parts.append("\n".join(lines))
    return "\n".join(parts)


def to_csv(tables: Sequence[ResultsTable]) -> str:
    buf = io.StringIO()
    cols = [
        "metric",
        "dataset",
        "model",
        "mean",
        "std",
        "n",
        "reference",
        "p_value",
        "significant",
        "best",
        "values",
        "run",
    ]
    writer = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    writer.writeheader()
    for t in tables:
        for rec in t.records():
            writer.writerow(
                {
                    **rec,
                    "values": " ".join(f"{v:.6f}" for v in rec["values"]),
                    "p_value": "" if rec["p_value"] is None else rec["p_value"],
                }
            )
    return buf.getvalue()


def to_json(tables: Sequence[ResultsTable]) -> str:
    return (
        json.dumps(
            {
                "tables": [
                    {
                        "metric": t.metric,
                        "reference": t.reference,
                        "datasets": list(t.rows),
                        "models": list(t.models),
                        "cells": t.records(),
                    }
                    for t in tables
                ]
            },
            indent=2,
        )
        + "\n"
    )


def write_tables(tables: Sequence[ResultsTable], out_dir: str | os.PathLike) -> dict[str, Path]:
    """Write ``results.md``, ``results.csv`` and ``results.json`` atomically into ``out_dir``."""
    out_dir = Path(out_dir)
    return {
        ext: atomic_write_text(out_dir / f"results.{ext}", text)
        for ext, text in (("md", to_markdown(tables)), ("csv", to_csv(tables)), ("json", to_json(tables)))
    }


def compare_runs(
    run_dirs: Sequence[str | os.PathLike], out_dir: str | os.PathLike | None = None, *, reference: str | None = None
) -> list[ResultsTable]:
    """Read finished runs, build the tables and (when ``out_dir`` is given) write them."""
    # deferred: fine-tuning's module (numpy, the analysis package), only to read runs
    from pretrain.finetune.run import load_run

    runs = [load_run(d) for d in run_dirs]
    tables = build_tables(runs, reference=reference, sources=[str(d) for d in run_dirs])
    if out_dir is not None:
        write_tables(tables, out_dir)
    return tables
