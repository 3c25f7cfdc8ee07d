"""The parent side of ``bench_pretrain.py``: each variant's worker process started (one after the other, or side by
side with their timed steps taken in turn), its figures read back, and one table row made of them (median
tokens/s, speed-up, compile facts, memory, MFU on a GPU whose peak is known).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from pretrain_flops import train_flops_per_token
from pretrain_variants import CUDA_ONLY, model_config

ROOT = Path(__file__).resolve().parent.parent


def measure_row(args, path: Path, name: str, *, vocab: int, seq: int, device: str, peak: float | None) -> dict:
    """Every variant of ``args.variants`` on the store at ``path`` with the model ``name``: one table row (with MFU
    on a GPU whose peak is known)."""
    from pretrain.data.store import ExampleStore

    model_cfg = model_config(name)
    results = {v: [] for v in args.variants}
    for _ in range(args.rounds or 1):
        if args.sequential or args.gpu:
            for variant in args.variants:
                results[variant].append(_skipped(variant, vocab, args) or measure(variant, path, name, args))
        else:
            skipped = {v: r for v in args.variants if (r := _skipped(v, vocab, args))}
            runnable = [v for v in args.variants if v not in skipped]
            for variant, result in measure_interleaved(runnable, path, name, args).items():
                results[variant].append(result)
            for variant, result in skipped.items():
                results[variant].append(result)
    row = summarise(results, vocab=vocab, model_cfg=model_cfg, seq=seq, args=args, device=device)
    if args.gpu and peak:
        store = ExampleStore(path)
        lengths = np.asarray(store.lengths).sum()
        mask_rate = float((np.asarray(store.arrays["mlm_positions"]) >= 0).sum() / lengths)
        row["mfu"] = {
            v: rate
            * train_flops_per_token(model_cfg, vocab, seq, mask_rate, masked_only=v != "baseline")
            / (peak * 1e12)
            for v, rate in row["tokens_per_s"].items()
            if rate is not None
        }
    return row


def row_problems(row: dict, vocab: int, *, compile_asked: bool) -> list[str]:
    """What in a row fails the run: an error other than running out of memory or a skip, or a variant that was to
    compile and fell back to eager."""
    problems = [
        f"{v} at vocabulary {vocab}: {err}"
        for v, err in row["errors"].items()
        if err != "OOM" and not err.startswith("skipped")
    ]
    for v, facts in row["compile"].items():
        if compile_asked and v not in ("baseline", "ours-eager") and facts.get("compiled") is False:
            problems.append(f"{v} at vocabulary {vocab}: torch.compile was asked for and fell back to eager")
    return problems


def _skipped(variant: str, vocab: int, args) -> dict | None:
    """The result of a variant not run at ``vocab`` (``--baseline-max-vocab``, or a CUDA-only variant without
    ``--gpu``), else None.

    >>> from types import SimpleNamespace as NS
    >>> _skipped("ours-cudagraphs", 32000, NS(gpu=False, baseline_max_vocab=None))
    {'error': 'skipped (needs CUDA: CUDA graphs need CUDA)'}
    >>> _skipped("baseline", 128000, NS(gpu=True, baseline_max_vocab=64000))
    {'error': 'skipped (above --baseline-max-vocab 64000)'}
    """
    if variant in CUDA_ONLY and not args.gpu:
        return {"error": f"skipped (needs CUDA: {CUDA_ONLY[variant]})"}
    limit = args.baseline_max_vocab
    if variant == "baseline" and limit is not None and vocab > limit:
        return {"error": f"skipped (above --baseline-max-vocab {limit})"}
    return None


def summarise(results: dict[str, list[dict]], *, vocab: int, model_cfg, seq: int, args, device: str) -> dict:
    """One table row from each variant's process results (a failed variant has ``None`` figures and an error)."""
    ok = {v: [r for r in rs if "error" not in r] for v, rs in results.items()}
    errors = {v: next(r["error"] for r in rs if "error" in r) for v, rs in results.items() if len(ok[v]) < len(rs)}
    rates = {v: float(np.median([x for r in rs for x in r["rates"]])) if rs else None for v, rs in ok.items()}
    ref = rates[args.variants[0]]
    row = {
        "vocab": vocab,
        "model": model_cfg.name,
        "seq": seq,
        "batch": args.batch,
        "device": device,
        "tokens_per_s": rates,
        "speedup": {v: r / ref if r is not None and ref else None for v, r in rates.items()},
        "warmup_s": {v: float(np.median([r["warmup_s"] for r in rs])) if rs else None for v, rs in ok.items()},
        "errors": errors,
        "compile": {
            v: {k: rs[-1].get(k) for k in ("compiled", "graphs", "frames_compiled", "graph_breaks")}
            for v, rs in ok.items()
            if rs
        },
        "profile_ms_per_step": {
            v: rs[-1]["profile_ms_per_step"] for v, rs in ok.items() if rs and "profile_ms_per_step" in rs[-1]
        },
        "window_ms": {v: rs[-1]["window_ms"] for v, rs in ok.items() if rs and "window_ms" in rs[-1]},
    }
    if args.gpu:
        row["max_memory_gib"] = {v: max(r["max_memory_gib"] for r in rs) if rs else None for v, rs in ok.items()}
        row["syncs"] = {
            v: {k: rs[-1].get(k) for k in ("syncs_per_step", "synchronize_calls_per_step", "sync_sites")}
            for v, rs in ok.items()
            if rs
        }
    return row


def _worker_cmd(variant: str, store: Path, model: str, args, *extra: str) -> list[str]:
    cmd = (
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_pretrain.py"),
            "--worker",
            variant,
            "--store",
            str(store),
            "--model",
            model,
            "--batch",
            str(args.batch),
            "--steps",
            str(args.steps),
            "--warmup",
            str(args.warmup),
            "--compile",
            args.compile,
            *extra,
        ]
        + (["--gpu"] if args.gpu else [])
        + (["--window", str(args.window)] if args.window else [])
    )
    return cmd + (["--micro", str(args.micro)] if args.micro else [])


def _read_tagged(proc, tag: str, log) -> float:
    for line in proc.stdout:
        if line.startswith(f"@@{tag} "):
            return float(line.split()[1])
    log.seek(0)
    raise RuntimeError(f"benchmark worker exited ({proc.wait()}):\n{log.read()[-3000:]}")


def measure_interleaved(variants: list[str], store: Path, model: str, args) -> dict[str, dict]:
    """All variants at once, one process each, their timed steps taken in turn (the CPU default)."""
    import subprocess

    logs = {v: tempfile.TemporaryFile("w+") for v in variants}  # noqa: SIM115 - a file, not a pipe: a full pipe blocks
    procs = {
        v: subprocess.Popen(
            _worker_cmd(v, store, model, args, "--serve"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=logs[v],
            text=True,
        )
        for v in variants
    }
    try:
        out = {v: {"rates": [], "warmup_s": _read_tagged(p, "ready", logs[v])} for v, p in procs.items()}
        for i in range(args.steps):
            for v, p in procs.items():
                p.stdin.write(f"{i}\n")
                p.stdin.flush()
                out[v]["rates"].append(_read_tagged(p, "rate", logs[v]))
    finally:
        for v, p in procs.items():
            p.stdin.close()
            p.wait()
            logs[v].close()
    return out


def measure(variant: str, store: Path, model: str, args) -> dict:
    """Run one variant in its own process (so allocators and compiled code never mix) and read its figures."""
    import subprocess

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    extra = ["--json", str(out)]
    if args.profile_dir and variant == "ours":
        extra += ["--profile", str(args.profile_dir / f"profile_{store.name}_{model}.txt")]
    if args.window_check and variant.startswith("ours"):
        extra += ["--window-check"]
    proc = subprocess.run(_worker_cmd(variant, store, model, args, *extra), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        out.unlink(missing_ok=True)
        return failure(variant, store, proc.stderr)
    result = json.loads(out.read_text())
    out.unlink()
    return result


def failure(variant: str, store: Path, stderr: str) -> dict:
    """A variant whose process failed: ``OOM`` (out of device memory, a result in itself) or the error's last line."""
    if "OutOfMemoryError" in stderr or "CUDA out of memory" in stderr:
        return {"error": "OOM"}
    last = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "no output")
    print(f"{variant} on {store.name} failed:\n{stderr[-3000:]}", file=sys.stderr, flush=True)
    return {"error": f"failed: {last[:200]}"}
