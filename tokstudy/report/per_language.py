"""Table 4 per language as rows, Markdown and a figure: languages sorted by the NE − non-NE gap, by script.

The rows (:func:`language_rows`, for CSV and JSON), the Markdown (:func:`languages_markdown`, what
``tokstudy stats`` prints) and the figure (:func:`plot_languages`) all read one
:class:`~tokstudy.analysis.stats.per_language.LanguageTable`, so they show the same numbers, in the same
order: the first tokenizer's gap, largest first.

>>> # res = language_table(table)                   # tokstudy.analysis.stats.per_language
>>> # print(languages_markdown(res)); plot_languages(res, "out/languages")   # languages.png, .svg
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from tokstudy.analysis.table.bytepieces import BYTE_PIECE_THRESHOLD
from tokstudy.analysis.table.coverage import THRESHOLD
from tokstudy.report import names
from tokstudy.report.figures import _err, _plt, _save
from tokstudy.report.numbers import json_number
from tokstudy.report.result import Table
from tokstudy.report.tables import _ci, markdown_table

#: the colour of each script in the figure (others take the next colour of :data:`_MORE`).
SCRIPT_COLOURS = {
    "Latin": "#4c72b0",
    "Cyrillic": "#dd8452",
    "Arabic": "#55a868",
    "Devanagari": "#c44e52",
    "Bengali": "#8172b3",
    "Hangul": "#937860",
    "Han": "#da8bc3",
    "Japanese (Han + Kana)": "#e377c2",
    "Ge'ez": "#ccb974",
    "Greek": "#64b5cd",
    "Hebrew": "#17becf",
    "Thai": "#bcbd22",
}
#: unknown pieces % above which a language's bar is hatched (the threshold of the unknown-piece warning).
UNKNOWN_MARK = 100 * THRESHOLD
#: byte pieces % above which a language's bar is hatched too (the threshold of the byte-piece warning).
BYTE_PIECE_MARK = 100 * BYTE_PIECE_THRESHOLD
_MORE = ("#7f7f7f", "#8c564b", "#2ca02c", "#9467bd", "#d62728", "#1f77b4")
#: the figures of a row: (its attribute, the field of its value in the rows, decimals); the interval is in
#: ``<attribute>_low`` and ``<attribute>_high``.
_FIGURES = (
    ("ne", "ne_pct", 2),
    ("non_ne", "non_ne_pct", 2),
    ("gap", "gap_pp", 2),
    ("fertility", "fertility", 4),
    ("unknown", "unknown_pct", 4),
    ("byte_pieces", "byte_pieces_pct", 4),
)


def language_rows(result) -> list[dict]:
    """One flat row per tokenizer and (dataset, language), each tokenizer's rows by gap, largest first:
    ``ne_pct``, ``ne_low``, ``ne_high``, ``non_ne_pct`` ..., ``gap_pp`` (percentage points), ``fertility``,
    ``unknown_pct``, ``byte_pieces_pct`` (bytes, not whole characters; ``None`` where not counted), and the
    words and sentences behind them."""
    rows = []
    for tokenizer in result.tokenizers:
        for r in result.ranked(tokenizer):
            row = {
                "tokenizer": r.tokenizer,
                "dataset": r.dataset,
                "name": r.name,
                "split": r.split,
                "language": r.language,
                "script": r.script,
            }
            for attr, field, digits in _FIGURES:
                est = getattr(r, attr)
                row[field] = None if est is None else json_number(est.value, digits)
                row[f"{attr}_low"] = None if est is None else json_number(est.low, digits)
                row[f"{attr}_high"] = None if est is None else json_number(est.high, digits)
            row.update(ne_words=r.ne.n_words, non_ne_words=r.non_ne.n_words, sentences=r.fertility.n_sentences)
            row["boundary_policy"] = result.boundary_policies[r.tokenizer]
            rows.append(row)
    return rows


def languages_markdown(result) -> str:
    """One table per tokenizer: each language's NE and non-NE additional segmentation, gap, fertility, unknown
    pieces and byte pieces, largest gap first."""
    boot = result.bootstrap
    ci = (
        f"{boot.confidence:.0%} bootstrap CI over sentences ({boot.n_resamples} resamples, all languages together)"
        if boot.n_resamples
        else "no confidence intervals (0 resamples)"
    )
    parts = [
        f"Additional segmentation % (pieces / words − 1) per language, {ci}; gap = NE − non-NE in percentage "
        "points; fertility = pieces per word, unknown % = unknown pieces / pieces and byte pieces % = pieces that "
        "are UTF-8 bytes, not whole characters (byte fallback or byte-level BPE) / pieces, over all words."
    ]
    for tokenizer in result.tokenizers:
        rows = [
            {
                "language": r.language,
                "script": r.script,
                "dataset": r.dataset,
                "NE %": _ci(r.ne),
                "non-NE %": _ci(r.non_ne),
                "gap (pp)": _ci(r.gap),
                "fertility": _ci(r.fertility, 3),
                "unknown %": _ci(r.unknown),
                "byte pieces %": _ci(r.byte_pieces),
                "NE words": r.ne.n_words,
                "sentences": r.fertility.n_sentences,
            }
            for r in result.ranked(tokenizer)
        ]
        parts.append(f"**{tokenizer}**, largest gap first\n\n" + markdown_table(rows))
    return "\n\n".join(parts)


def languages_report(result) -> Table:
    """The section's table: the Markdown and the CSV rows (no JSON: ``tokstudy stats --json`` holds the results)."""
    return Table(names.LANGUAGES, languages_markdown(result), language_rows(result))


def script_colours(scripts) -> dict[str, str]:
    """A colour for each script: :data:`SCRIPT_COLOURS`, then :data:`_MORE` in turn for the others.

    >>> script_colours(["Latin", "Tifinagh"])
    {'Latin': '#4c72b0', 'Tifinagh': '#7f7f7f'}
    """
    out, more = {}, iter(_MORE * (1 + len(_MORE)))
    for s in dict.fromkeys(scripts):
        out[s] = SCRIPT_COLOURS.get(s) or next(more)
    return out


def plot_languages(result, stem: str | os.PathLike) -> list[Path]:
    """Horizontal bars of each language's gap (NE − non-NE additional segmentation, percentage points) with its
    interval, coloured by script: one panel per tokenizer, languages in the first tokenizer's order (largest gap
    on top); hatched where more than 1 % of the pieces are unknown or more than 10 % are byte pieces. Writes
    ``stem.png`` and ``stem.svg``."""
    plt = _plt()
    order = result.dataset_order()
    by_key = {(r.tokenizer, r.dataset): r for r in result.rows}
    first = [by_key[(result.tokenizers[0], d)] for d in order]
    colours = script_colours(r.script for r in first)
    n = len(result.tokenizers)
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n + 1.5, 0.24 * len(order) + 1.6), sharey=True, squeeze=False)
    y = np.arange(len(order))[::-1]
    for ax, tokenizer in zip(axes[0], result.tokenizers):
        rows = [by_key[(tokenizer, d)] for d in order]
        gaps = [r.gap for r in rows]
        values = [0.0 if math.isnan(g.value) else g.value for g in gaps]
        bars = ax.barh(y, values, xerr=_err(gaps), color=[colours[r.script] for r in first], capsize=2, height=0.7)
        for bar, r in zip(bars, rows):
            if r.unknown.value > UNKNOWN_MARK or _byte_pieces(r) > BYTE_PIECE_MARK:  # not segmentation there
                bar.set_hatch("///")
                bar.set_edgecolor("white")
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_title(tokenizer, fontsize=9)
        ax.set_xlabel("NE − non-NE (pp)")
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(y, [_label(r) for r in first], fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="#999999", edgecolor="white", hatch="///"))
    labels = [*colours, f"> {UNKNOWN_MARK:g} % unknown or > {BYTE_PIECE_MARK:g} % byte pieces"]
    fig.legend(handles, labels, title="script", loc="upper left", bbox_to_anchor=(1.0, 0.95), frameon=False)
    fig.suptitle("Extra pieces of words in named entities over other words, per language")
    fig.tight_layout()
    return _save(fig, stem)


def _byte_pieces(row) -> float:
    """A row's byte pieces %, 0 where not counted."""
    return 0.0 if row.byte_pieces is None else row.byte_pieces.value


def _label(row) -> str:
    """``yor (masakhaner2)``: the language and the corpus it comes from."""
    return f"{row.language} ({row.name})"
