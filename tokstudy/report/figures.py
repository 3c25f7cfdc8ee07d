"""Report figures with matplotlib (Agg backend, imported only when a figure is drawn).

Each function takes analysis results and an output path *stem* and writes
``stem.png`` and ``stem.svg``, returning both paths.

>>> # plot_additional_segmentation(compare_tokenizers(table), "out/additional_segmentation")
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from tokstudy.report.attribution_rows import AttributionRow


def _plt():
    # deferred: matplotlib (~0.3-0.5 s), only when a figure is drawn
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # deferred: as above

    return plt


def _save(fig, stem: str | os.PathLike) -> list[Path]:
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        p = stem.with_name(stem.name + f".{ext}")
        fig.savefig(p, dpi=120 if ext == "png" else None, bbox_inches="tight")
        paths.append(p)
    _plt().close(fig)
    return paths


def _err(est_list):
    """Asymmetric error bars from Estimates (zeros where there is no interval)."""
    lo = [0.0 if math.isnan(e.low) else e.value - e.low for e in est_list]
    hi = [0.0 if math.isnan(e.high) else e.high - e.value for e in est_list]
    return np.array([lo, hi])


def plot_additional_segmentation(results: Sequence, stem, *, vocab_sizes: dict | None = None) -> list[Path]:
    """Grouped bars: additional segmentation % of NE and non-NE words per tokenizer, with CIs.

    Tokenizers are ordered by vocabulary size when ``vocab_sizes`` is given.
    """
    plt = _plt()
    res = list(results)
    if vocab_sizes:
        res.sort(key=lambda r: vocab_sizes.get(r.tokenizer, 0))
    x = np.arange(len(res))
    fig, ax = plt.subplots(figsize=(max(4.5, 1.4 * len(res) + 2), 3.6))
    for k, (attr, label, color) in enumerate((("ne", "NE words", "#c44e52"), ("non_ne", "non-NE words", "#4c72b0"))):
        ests = [getattr(r, attr) for r in res]
        ax.bar(
            x + (k - 0.5) * 0.38, [e.value for e in ests], 0.38, yerr=_err(ests), capsize=3, label=label, color=color
        )
    labels = [
        r.tokenizer + (f"\n({vocab_sizes[r.tokenizer]:,})" if vocab_sizes and r.tokenizer in vocab_sizes else "")
        for r in res
    ]
    ax.set_xticks(x, labels)
    ax.set_ylabel("additional segmentation %")
    ax.set_title("Pieces per word − 1, NE vs non-NE words")
    ax.legend(frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, stem)


def plot_error_by_pieces(correlations: Sequence, stem) -> list[Path]:
    """Error rate of words with 1, 2, 3, 4, 5+ pieces, one line per (tokenizer, model)."""
    plt = _plt()
    many = len(correlations) > 4  # then the legend goes beside the axes, not over the lines
    fig, ax = plt.subplots(figsize=(8.5 if many else 5.5, 3.6 if not many else max(3.6, 0.22 * len(correlations))))
    for c in correlations:
        bins = [b for b in c.by_pieces if b.n > 0]
        ax.plot(
            [b.pieces for b in bins],
            [100 * b.error_rate for b in bins],
            marker="o",
            label=f"{c.model} / {c.tokenizer} (r={c.all.r:.2f})",
        )
    ax.set_xlabel("pieces per word")
    ax.set_ylabel("words mislabelled %")
    ax.set_title("Error rate by number of pieces")
    if many:
        ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, stem)


def plot_by_group(grouped: Sequence, stem, *, ylabel: str = "additional segmentation %") -> list[Path]:
    """Bars per group (language, entity type, ...) for each tokenizer, with CIs."""
    plt = _plt()
    names = list(dict.fromkeys(n for g in grouped for n in g.groups))
    x = np.arange(len(names))
    width = 0.8 / max(1, len(grouped))
    fig, ax = plt.subplots(figsize=(max(4.5, 0.9 * len(names) * max(1, len(grouped)) / 1.5 + 2), 3.6))
    for k, g in enumerate(grouped):
        ests = [g.groups.get(n) for n in names]
        vals = [e.value if e else np.nan for e in ests]
        errs = _err([e for e in ests if e]) if all(ests) else None
        ax.bar(x + (k - (len(grouped) - 1) / 2) * width, vals, width, yerr=errs, capsize=2, label=g.tokenizer)
    ax.set_xticks(x, names)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{ylabel} by {grouped[0].by}" if grouped else "")
    ax.legend(frameon=False, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, stem)


def plot_parity(results: Sequence, stem) -> list[Path]:
    """Parity (pieces relative to the reference language) per language, one bar group per tokenizer."""
    plt = _plt()
    langs = list(results[0].languages) if results else []
    x = np.arange(len(langs))
    width = 0.8 / max(1, len(results))
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 0.7 * len(langs) * 2 + 2), 3.6))
    for k, r in enumerate(results):
        off = (k - (len(results) - 1) / 2) * width
        par = [r.languages[lg].parity for lg in langs]
        axes[0].bar(x + off, [e.value for e in par], width, yerr=_err(par), capsize=2, label=r.tokenizer)
        fert = [r.languages[lg].fertility for lg in langs]
        axes[1].bar(x + off, [e.value for e in fert], width, yerr=_err(fert), capsize=2, label=r.tokenizer)
    ref = results[0].reference if results else "en"
    axes[0].axhline(1.0, color="black", lw=0.8)
    axes[0].set_ylabel(f"pieces relative to {ref}")
    axes[0].set_title("Parity on parallel paragraphs")
    axes[1].set_ylabel("pieces per whitespace word")
    axes[1].set_title("Fertility")
    for ax in axes:
        ax.set_xticks(x, langs)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(frameon=False, fontsize=8)
    return _save(fig, stem)


def plot_odds_ratios(rows: Sequence[AttributionRow], stem) -> list[Path]:
    """Odds ratio of a mislabel per extra piece, adjusted and unadjusted, with CIs: one row per model × tokenizer
    (:class:`~tokstudy.report.attribution_rows.AttributionRow` each)."""
    plt = _plt()
    rows = [r for r in rows if r.adjusted.value is not None or r.unadjusted.value is not None]
    fig, ax = plt.subplots(figsize=(6.5, max(2.2, 0.45 * len(rows) + 1.2)))
    y = np.arange(len(rows))[::-1]
    for k, (cells_of, label, color) in enumerate(
        ((lambda r: r.adjusted, "adjusted", "#c44e52"), (lambda r: r.unadjusted, "unadjusted", "#8c8c8c"))
    ):
        pts = [(yy + (0.15 if k else -0.15), cells_of(r)) for yy, r in zip(y, rows) if cells_of(r).value is not None]
        if not pts:
            continue
        ys = [p[0] for p in pts]
        v = np.array([c.value for _, c in pts])
        lo = np.array([c.low for _, c in pts])
        hi = np.array([c.high for _, c in pts])
        ax.errorbar(v, ys, xerr=[v - lo, hi - v], fmt="o", color=color, capsize=3, label=label)
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter  # deferred: matplotlib, only when a figure is drawn

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.set_yticks(y, [r.label() for r in rows])
    ax.set_xlabel("odds ratio of a mislabel per extra piece (log scale)")
    ax.set_title("Segmentation vs errors, holding frequency, entity status and length")
    ax.legend(frameon=False, fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, stem)


def plot_errors(correlations: Sequence, attribution_rows: Sequence[AttributionRow], folder) -> list[Path]:
    """The error sections' figures, as both reports draw them: ``error_by_pieces`` (the error rate by number of
    pieces) and ``odds_ratios`` (per extra piece); none without correlations."""
    folder = Path(folder)
    written = plot_error_by_pieces(correlations, folder / "error_by_pieces") if correlations else []
    return written + (plot_odds_ratios(attribution_rows, folder / "odds_ratios") if attribution_rows else [])


def plot_score_vs_energy(points: Sequence[dict], stem) -> list[Path]:
    """Mean score (± sd over seeds) against energy (kWh, log scale), one panel per task.

    ``points`` are dicts with ``task``, ``model``, ``pretrained``, ``mean``, ``std``, ``energy_kwh`` and
    ``metric`` (as :func:`tokstudy.study.control_and_cost.energy_points` returns them): filled markers for
    pre-trained models, hollow ones for the no-pre-training controls.
    """
    plt = _plt()
    tasks = list(dict.fromkeys(p["task"] for p in points))
    fig, axes = plt.subplots(1, max(1, len(tasks)), figsize=(3.6 * max(1, len(tasks)) + 1, 3.6), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        for p in (q for q in points if q["task"] == task):
            face = None if p["pretrained"] else "none"
            ax.errorbar(
                [p["energy_kwh"]],
                [p["mean"]],
                yerr=[p["std"]],
                fmt="o" if p["pretrained"] else "s",
                mfc=face,
                capsize=3,
                label=p["model"],
            )
        ax.set_xscale("log")
        ax.set_xlabel("energy, kWh (pre-training + fine-tuning)")
        ax.set_ylabel(next(p["metric"] for p in points if p["task"] == task))
        ax.set_title(task, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(frameon=False, fontsize=7)
    fig.suptitle("Score against energy (hollow: no pre-training)", fontsize=10)
    return _save(fig, stem)
