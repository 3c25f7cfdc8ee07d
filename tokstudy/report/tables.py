"""Result dataclasses -> flat rows -> Markdown, CSV and JSON.

Every ``*_rows`` function turns analysis results into a list of flat dicts (one
dict = one table row, plain numbers and strings); :func:`markdown_table`,
:func:`write_csv` and :func:`write_json` render any such list. Keeping rows as the
middle step means the CLI, the report writer and the app show the same numbers.

>>> markdown_table([{"tokenizer": "sp32k", "NE %": 120.59}], ["tokenizer", "NE %"])
'| tokenizer | NE % |\\n|---|---|\\n| sp32k | 120.59 |'
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from tokstudy.report.numbers import format_p, json_number


def _fmt(v, digits: int = 2) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return "–" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def _ci(est, digits: int = 2) -> str:
    """``value [low, high]`` text of an Estimate-like object."""
    if est is None or math.isnan(est.value):
        return "–"
    if math.isnan(est.low):
        return f"{est.value:.{digits}f}"
    return f"{est.value:.{digits}f} [{est.low:.{digits}f}, {est.high:.{digits}f}]"


# ---- rows -------------------------------------------------------------------------


def table4_rows(results: Sequence) -> list[dict]:
    """Table 4: one row per tokenizer, additional segmentation % for NE, non-NE and all words."""
    rows = []
    for r in results:
        row = {"tokenizer": r.tokenizer}
        for key, est in (("ne", r.ne), ("non_ne", r.non_ne), ("all", r.all)):
            row[f"{key}_pct"] = json_number(est.value, 2)
            row[f"{key}_low"] = json_number(est.low, 2)
            row[f"{key}_high"] = json_number(est.high, 2)
            row[f"{key}_words"] = est.n_words
        row["boundary_policy"] = r.boundary_policy
        rows.append(row)
    return rows


def table4_markdown(results: Sequence) -> str:
    boot = results[0].bootstrap if results else None
    ci = (
        f"{boot.confidence:.0%} bootstrap CI over sentences ({boot.n_resamples} resamples)"
        if boot and boot.n_resamples
        else "no confidence intervals (0 resamples)"
    )
    rows = [
        {
            "tokenizer": r.tokenizer,
            "NE": _ci(r.ne),
            "non-NE": _ci(r.non_ne),
            "all": _ci(r.all),
            "NE words": r.ne.n_words,
            "non-NE words": r.non_ne.n_words,
        }
        for r in results
    ]
    head = f"Additional segmentation % (pieces / words − 1), {ci}"
    return head + "\n\n" + markdown_table(rows) + "\n\n" + policy_note(results)


def policy_note(results: Iterable) -> str:
    """One line per distinct boundary policy, naming its tokenizers."""
    by: dict[str, list[str]] = {}
    for r in results:
        by.setdefault(r.boundary_policy, []).append(r.tokenizer)
    return "\n".join(f"Boundary policy ({', '.join(t)}): {p}." for p, t in by.items())


def summary_rows(summaries: Sequence) -> list[dict]:
    """Fertility, continued %, unknown %, byte-fallback %, byte pieces % (bytes, not whole characters), pieces per
    continued word for NE / non-NE / all."""
    rows = []
    for s in summaries:
        for subset in ("ne", "non_ne", "all"):
            sub = getattr(s, subset)
            rows.append(
                {
                    "tokenizer": s.tokenizer,
                    "words": subset,
                    "additional_pct": json_number(sub.additional_segmentation.value, 2),
                    "fertility": json_number(sub.fertility.value, 4),
                    "fertility_low": json_number(sub.fertility.low, 4),
                    "fertility_high": json_number(sub.fertility.high, 4),
                    "continued_pct": json_number(sub.continued.value, 2),
                    "unknown_pct": json_number(sub.unknown.value, 4),
                    "byte_fallback_pct": json_number(sub.byte_fallback.value, 4) if sub.byte_fallback else None,
                    "byte_pieces_pct": json_number(sub.byte_pieces.value, 4) if sub.byte_pieces else None,
                    "pieces_per_continued": json_number(sub.pieces_per_continued.value, 4),
                    "n_words": sub.fertility.n_words,
                    "n_pieces": sub.n_pieces,
                }
            )
    return rows


def summary_markdown(summaries: Sequence) -> str:
    rows = []
    for s in summaries:
        for subset, label in (("ne", "NE"), ("non_ne", "non-NE"), ("all", "all")):
            sub = getattr(s, subset)
            rows.append(
                {
                    "tokenizer": s.tokenizer,
                    "word set": label,
                    "fertility": _ci(sub.fertility, 3),
                    "continued %": _ci(sub.continued),
                    "unknown %": _ci(sub.unknown, 3),
                    "byte-fallback %": _ci(sub.byte_fallback, 3) if sub.byte_fallback else "",
                    "byte pieces %": _ci(sub.byte_pieces, 3) if sub.byte_pieces else "",
                    "pieces / continued word": _ci(sub.pieces_per_continued, 3),
                    "n words": sub.fertility.n_words,
                }
            )
    return markdown_table(rows)


def grouped_rows(grouped: Sequence) -> list[dict]:
    """Additional segmentation % per group (entity type, position, language, dataset)."""
    return [
        {
            "tokenizer": g.tokenizer,
            "by": g.by,
            "subset": g.subset,
            "group": name,
            "additional_pct": json_number(e.value, 2),
            "low": json_number(e.low, 2),
            "high": json_number(e.high, 2),
            "n_words": e.n_words,
        }
        for g in grouped
        for name, e in g.groups.items()
    ]


def grouped_markdown(grouped: Sequence) -> str:
    """One column per tokenizer (per tokenizer and subset, e.g. ``sp8k NE``, when not every word), one row per group."""
    if not grouped:
        return ""
    names = list(dict.fromkeys(n for g in grouped for n in g.groups))
    rows = []
    for name in names:
        row = {grouped[0].by: name}
        for g in grouped:
            col = g.tokenizer if g.subset == "all" else f"{g.tokenizer} {_GROUP_LABELS[g.subset]}"
            row[col] = _ci(g.groups[name]) if name in g.groups else "–"
        rows.append(row)
    return markdown_table(rows)


_GROUP_LABELS = {"ne": "NE", "non_ne": "non-NE", "all": "all"}


def intrinsic_rows(summaries: Sequence) -> list[dict]:
    """Compression, Shannon entropy, Rényi efficiency, vocabulary use: one row per tokenizer and group."""
    rows = []
    for s in summaries:
        for group, e in s.groups.items():
            row = {"tokenizer": s.tokenizer, "group": group, "vocab_size": s.vocab_size, "renyi_alpha": s.renyi_alpha}
            for name in (
                "chars_per_piece",
                "bytes_per_piece",
                "shannon_entropy",
                "renyi_efficiency",
                "vocab_utilization",
            ):
                est = getattr(e, name)
                row[name] = json_number(est.value, 4)
                row[f"{name}_low"] = json_number(est.low, 4)
                row[f"{name}_high"] = json_number(est.high, 4)
            row.update({"n_pieces": e.n_pieces, "n_distinct": e.n_distinct})
            rows.append(row)
    return rows


def intrinsic_markdown(summaries: Sequence) -> str:
    rows = []
    for s in summaries:
        for group, e in s.groups.items():
            rows.append(
                {
                    "tokenizer": s.tokenizer,
                    "words": _GROUP_LABELS.get(group, group),
                    "chars / piece": _ci(e.chars_per_piece, 3),
                    "bytes / piece": _ci(e.bytes_per_piece, 3),
                    "Shannon entropy (bits)": _ci(e.shannon_entropy, 3),
                    f"Rényi efficiency (α={s.renyi_alpha:g})": _ci(e.renyi_efficiency, 4),
                    "vocabulary used": _fmt(e.vocab_utilization.value, 4),
                    "distinct pieces": e.n_distinct,
                }
            )
    return markdown_table(rows)


def correlation_rows(results: Sequence) -> list[dict]:
    rows = []
    for c in results:
        for subset, corr in (("all", c.all), ("ne", c.ne), ("entities_max", c.entities.max_pieces)):
            rows.append(
                {
                    "tokenizer": c.tokenizer,
                    "model": c.model,
                    "dataset": c.dataset,
                    "measure": c.measure,
                    "words": subset,
                    "pearson_r": json_number(corr.r, 4),
                    "p_value": corr.p_value,
                    "r_low": json_number(corr.low, 4),
                    "r_high": json_number(corr.high, 4),
                    "spearman": json_number(corr.spearman, 4),
                    "spearman_p": corr.spearman_p,
                    "n": corr.n,
                }
            )
    return rows


def correlation_markdown(results: Sequence) -> str:
    rows = []
    for c in results:
        for label, corr in (
            ("all words", c.all),
            ("NE words", c.ne),
            ("entities (max pieces vs missed)", c.entities.max_pieces),
        ):
            rows.append(
                {
                    "tokenizer": c.tokenizer,
                    "model": c.model,
                    "over": label,
                    "Pearson r": _fmt(corr.r, 4),
                    "p": format_p(corr.p_value),
                    "CI of r": f"[{_fmt(corr.low, 3)}, {_fmt(corr.high, 3)}]",
                    "Spearman": _fmt(corr.spearman, 4),
                    "n": corr.n,
                }
            )
    return markdown_table(rows)


def pieces_rows(results: Sequence) -> list[dict]:
    """Error rate by number of pieces (words, NE words) and entity miss rate by max pieces."""
    rows = []
    for c in results:
        for over, bins in (("all", c.by_pieces), ("ne", c.by_pieces_ne), ("entities", c.entities.by_max_pieces)):
            for b in bins:
                rows.append(
                    {
                        "tokenizer": c.tokenizer,
                        "model": c.model,
                        "over": over,
                        "pieces": b.pieces,
                        "n": b.n,
                        "n_errors": b.n_errors,
                        "error_rate": json_number(b.error_rate, 4),
                    }
                )
    return rows


def pieces_markdown(results: Sequence) -> str:
    rows = []
    for c in results:
        for label, bins in (
            ("words", c.by_pieces),
            ("NE words", c.by_pieces_ne),
            ("entities missed", c.entities.by_max_pieces),
        ):
            row = {"tokenizer": c.tokenizer, "model": c.model, "over": label}
            for b in bins:
                row[b.pieces] = f"{_fmt(100 * b.error_rate if b.n else float('nan'), 1)} % (n={b.n})"
            rows.append(row)
    return markdown_table(rows)


def parity_rows(results: Sequence) -> list[dict]:
    return [
        {
            "tokenizer": r.tokenizer,
            "language": lang,
            "parity": json_number(lp.parity.value, 4),
            "parity_low": json_number(lp.parity.low, 4),
            "parity_high": json_number(lp.parity.high, 4),
            "fertility": json_number(lp.fertility.value, 4),
            "n_pieces": lp.n_pieces,
            "n_words": lp.n_words,
            "n_paragraphs": lp.n_paragraphs,
            "reference": r.reference,
            "gini": json_number(r.gini.value, 4) if r.gini else None,
        }
        for r in results
        for lang, lp in r.languages.items()
    ]


def parity_markdown(results: Sequence) -> str:
    if not results:
        return ""
    rows = []
    for lang in results[0].languages:
        row = {"language": lang}
        for r in results:
            row[f"{r.tokenizer} parity"] = _ci(r.languages[lang].parity, 3)
            row[f"{r.tokenizer} fertility"] = _fmt(r.languages[lang].fertility.value, 3)
        rows.append(row)
    ginis = "; ".join(f"{r.tokenizer} {_ci(r.gini, 4)}" for r in results if r.gini is not None)
    return (
        f"Pieces relative to {results[0].reference!r} on the same paragraphs (1.00 = parity)\n\n"
        + markdown_table(rows)
        + "\n\n"
        + (f"Gini coefficient of the parities (0 = equal): {ginis}.\n\n" if ginis else "")
        + policy_note(results)
    )


# ---- rendering --------------------------------------------------------------------


def markdown_table(rows: Sequence[dict], columns: Sequence[str] | None = None) -> str:
    """A GitHub Markdown table (pipes in cells escaped)."""
    if not rows:
        return "(no rows)"
    cols = list(columns or dict.fromkeys(k for r in rows for k in r))
    esc = lambda v: _fmt(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(esc(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def write_csv(rows: Sequence[dict], path: str | os.PathLike) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path


def to_jsonable(obj):
    """Dataclasses, numpy values and NaN -> plain JSON values (NaN -> null)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        for prop in ("error_rate",):
            if hasattr(type(obj), prop):
                out[prop] = to_jsonable(getattr(obj, prop))
        return out
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return None if math.isnan(obj) else float(obj)
    return obj


def write_json(obj, path: str | os.PathLike) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
