"""The GPU check's summary: what each step's outputs say (tests, benchmark rows, the run's tokens/s and memory),
versions and device as the steps saw them (:mod:`gpu_versions`), written as ``summary.json`` and ``summary.md``;
every other output packed into one archive (a device command brings few files back).
"""

from __future__ import annotations

import csv
import json
import tarfile
import time
from dataclasses import asdict
from pathlib import Path

from gpu_runner import Runner, StepResult
from gpu_versions import environment


def step_facts(out: Path, result: StepResult) -> dict:
    """What each step's outputs say: test outcomes, benchmark rows, the run's steady tokens/s and memory."""
    facts = dict(result.facts)
    if result.name.startswith("pytest-"):
        facts.update(_junit(out / f"{result.name}.xml"))
    elif result.name == "attention" and (out / "attention.json").is_file():
        facts["kernels"] = json.loads((out / "attention.json").read_text())
    elif result.name.startswith("bench-"):
        path, log = out / f"{result.name}.json", out / result.log
        if path.is_file():
            facts["rows"] = json.loads(path.read_text())
        elif log.is_file():  # stopped at its budget: the rows it printed as it measured them
            lines = log.read_text(errors="replace").splitlines()
            facts["rows"] = [json.loads(line) for line in lines if line.startswith('{"vocab"')]
    elif result.name == "train":
        facts.update(_train_facts(out))
    elif result.name == "export":
        log = (out / "export.log").read_text() if (out / "export.log").is_file() else ""
        lines = [line for line in log.splitlines() if line.startswith('{"fill_mask_top3"')]
        if lines:
            facts.update(json.loads(lines[-1]))
    log_path = out / result.log if result.log else None
    if log_path and log_path.is_file():
        text = log_path.read_text(errors="replace")
        if result.name in ("bench-512", "bench-128", "pytest-gpu", "train", "study"):
            facts["recompiles_logged"] = text.count("Recompiling function")
            facts["compile_fell_back"] = "TrainConfig.compile" in text
        if result.status != "ok":
            facts["log_tail"] = "\n".join(text.strip().splitlines()[-15:])
    return facts


def _junit(path: Path) -> dict:
    if not path.is_file():
        return {}
    import xml.etree.ElementTree as ET

    tests = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = child.tag
                tests[case.get("name")] = {"outcome": outcome, "message": (child.get("message") or "")[:300]}
                break
            if child.tag == "skipped":
                outcome = "skipped"
                tests[case.get("name")] = {"outcome": outcome, "message": (child.get("message") or "")[:200]}
                break
        else:
            tests[case.get("name")] = {"outcome": outcome, "seconds": float(case.get("time") or 0)}
    return {"tests": tests}


def _train_facts(out: Path) -> dict:
    path = out / "train-metrics.csv"
    if not path.is_file():
        return {}
    with path.open(newline="") as f:
        rows = [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(f)]
    steady = [r["tokens_per_s"] for r in rows[1:] if "tokens_per_s" in r]  # the first interval holds the compile
    facts = {"logged_steps": [int(r["step"]) for r in rows], "final_loss": rows[-1].get("loss") if rows else None}
    if steady:
        facts["steady_tokens_per_s"] = sorted(steady)[len(steady) // 2]
    memory = [r["max_memory_gib"] for r in rows if r.get("max_memory_gib") is not None]
    if memory:
        facts["max_memory_gib"] = max(memory)
    return facts


def write_summary(out: Path, runner: Runner, args, seconds: float, *, versions: Path) -> int:
    """``summary.json`` and ``summary.md`` into ``out`` (the versions ``install`` wrote to ``versions``, else asked
    again), the rest packed; 0 when every step is ok."""
    env = environment(runner.python, runner.env, versions)
    cache = Path(runner.env.get("TORCHINDUCTOR_CACHE_DIR", "")) if runner.env.get("TORCHINDUCTOR_CACHE_DIR") else None
    files = [f for f in cache.rglob("*") if f.is_file()] if cache and cache.is_dir() else []
    env["compile_cache"] = {
        "path": str(cache),
        "files": len(files),
        "mib": sum(f.stat().st_size for f in files) / 2**20,
    }
    steps = [{**asdict(r), "facts": step_facts(out, r)} for r in runner.results]
    ok = all(s["status"] == "ok" for s in steps)
    summary = {
        "mode": ("dry run (CPU, toy sizes)" if args.dry_run else "gpu")
        + (f", {args.study} study" if args.study else ""),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": seconds,
        "environment": env,
        "steps": steps,
        "ok": ok,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    (out / "summary.md").write_text(render_markdown(summary))
    print((out / "summary.md").read_text())
    pack_outputs(out)
    return 0 if ok else 1


#: What the output folder keeps as files of its own; every other file (each step's log, JSON, profile) goes into
#: :data:`STEPS_TAR`. A device command brings back at most 8 files: the H100 lease of 2026-11-27 got 8 of its
#: 17 back, and summary.md was not among them.
LOOSE = ("summary.md", "summary.json", "lease.md", "lease-report.tar.gz")
STEPS_TAR = "steps.tar.gz"


def pack_outputs(out: Path) -> Path | None:
    """Move every file of ``out`` but :data:`LOOSE` into ``out/steps.tar.gz`` (kept when there is nothing to add)."""
    rest = [f for f in sorted(out.iterdir()) if f.is_file() and f.name not in (*LOOSE, STEPS_TAR)]
    if not rest:
        return None
    with tarfile.open(out / STEPS_TAR, "w:gz") as tar:
        for f in rest:
            tar.add(f, arcname=f.name)
    for f in rest:
        f.unlink()
    return out / STEPS_TAR


def render_markdown(summary: dict) -> str:
    env = summary["environment"]
    lines = [
        f"# gpu-check: {summary['mode']}, {summary['date']}",
        "",
        f"Device: **{env.get('device')}** (compute capability {env.get('capability')}), host {env.get('host')}, "
        f"{env.get('cpus')} CPUs. Python {env.get('python')}, torch {env.get('torch')} (CUDA {env.get('cuda')}), "
        f"transformers {env.get('transformers')}, deepspeed {env.get('deepspeed')}.",
        f"Whole command: {summary['seconds']:.0f} s. Result: **{'all steps ok' if summary['ok'] else 'NOT all ok'}**.",
        _cache_line(env.get("compile_cache")),
        "",
        "| step | status | seconds | budget s | log |",
        "|---|---|---:|---:|---|",
    ]
    for s in summary["steps"]:
        lines.append(f"| {s['name']} | {s['status']} | {s['seconds']:.0f} | {s['budget_s']} | {s['log']} |")
    for s in summary["steps"]:
        facts = s["facts"]
        lines += ["", f"## {s['name']}: {s['status']}", ""]
        if facts.get("why"):
            lines.append(f"Skipped: {facts['why']}.")
        if "tests" in facts:
            for name, t in facts["tests"].items():
                extra = f" ({t['seconds']:.1f} s)" if "seconds" in t else f": {t.get('message', '')}"
                lines.append(f"- `{name}`: {t['outcome']}{extra}")
        if "rows" in facts:
            lines += _bench_lines(facts["rows"])
        if "kernels" in facts:
            lines += _attention_lines(facts["kernels"])
        for key in ("steady_tokens_per_s", "max_memory_gib", "final_loss", "logged_steps", "fill_mask_top3", "model"):
            if key in facts:
                value = facts[key]
                lines.append(f"- {key}: {value:,.1f}" if isinstance(value, float) else f"- {key}: {value}")
        if "recompiles_logged" in facts:
            lines.append(
                f"- recompiles logged (TORCH_LOGS=recompiles): {facts['recompiles_logged']}; "
                f"compile fell back to eager: {'yes' if facts['compile_fell_back'] else 'no'}"
            )
        if facts.get("log_tail"):
            lines += ["", "```", facts["log_tail"], "```"]
    return "\n".join(lines) + "\n"


def _cache_line(cache: dict | None) -> str:
    if not cache:
        return ""
    return (
        f"torch.compile cache shared by the steps (`{cache['path']}`): {cache['files']} files, {cache['mib']:.1f} MiB "
        "at the end (a step's warm-up seconds below show whether it compiled or reused)."
    )


def _attention_lines(rows: list[dict]) -> list[str]:
    lines = [
        "",
        "| lengths | kernel | fwd ms | fwd+bwd ms | fwd TFLOP/s | bwd TFLOP/s | max diff vs first |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['lengths']} | {r['kernel']} | {r['error']} | | | | |")
            continue
        times = f"{r['forward_ms']:.2f} | {r['forward_backward_ms']:.2f}"
        rates = f"{r['forward_tflops']:.0f} | {r['backward_tflops']:.0f}"
        lines.append(f"| {r['lengths']} | {r['kernel']} | {times} | {rates} | {r['max_abs_diff']:.3g} |")
    return lines


def _bench_lines(rows: list[dict]) -> list[str]:
    lines = [
        "",
        "| vocab | seq | batch | variant | tokens/s | vs first | MFU | peak GiB | compiled | graphs | warm-up s | "
        "syncs/step | synchronize()/step |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]

    def fmt(value, spec):
        return "n/a" if value is None else format(value, spec)

    for r in rows:
        for v, rate in r["tokens_per_s"].items():
            comp = r.get("compile", {}).get(v, {})
            syncs = r.get("syncs", {}).get(v, {})
            mfu = r.get("mfu", {}).get(v)
            cells = [
                f"{r['vocab']:,}",
                str(r["seq"]),
                str(r["batch"]),
                v,
                r["errors"].get(v, "n/a") if rate is None else f"{rate:,.0f}",
                fmt(r["speedup"].get(v), ".2f"),
                fmt(None if mfu is None else 100 * mfu, ".1f"),
                fmt(r.get("max_memory_gib", {}).get(v), ".1f"),
                str(comp.get("compiled")),
                str(comp.get("graphs")),
                fmt(r.get("warmup_s", {}).get(v), ".1f"),
                fmt(syncs.get("syncs_per_step"), ".1f"),
                fmt(syncs.get("synchronize_calls_per_step"), ".1f"),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    for r in rows:
        for v, families in r.get("profile_ms_per_step", {}).items():
            parts = ", ".join(f"{family} {ms:.1f}" for family, ms in families.items())
            lines.append(f"\nWhere a step of {v} goes ({r['vocab']:,}, profiled, ms): {parts}.")
    for r in rows:
        for v, by_window in r.get("window_ms", {}).items():
            parts = ", ".join(f"{n} step{'' if n == '1' else 's'} {ms:.1f}" for n, ms in by_window.items())
            lines.append(
                f"\nms per step of {v} ({r['vocab']:,}) in windows of back-to-back steps: {parts} "
                "(the longest window's step no faster than the shortest's: the device waits in every step; "
                "faster: the wait is at each window's start)."
            )
    return lines
