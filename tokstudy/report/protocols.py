"""The r-protocols section: Pearson r of segmentation against errors under every protocol, side by side.

Renders :class:`~tokstudy.analysis.model_errors.protocols.ProtocolCorrelations` (one per tokenizer and model)
as rows for CSV/JSON (:func:`protocol_rows`, one row per protocol) and as a Markdown section
(:func:`protocols_markdown`). The section has one table: a row per tokenizer (and model, where a tokenizer
has several), unit and notion of error; a column per measure and lone-boundary counting; each cell
``r [CI]``. Then it names the protocol nearest the paper's r = 0.44 over all models. Computing stays in the
analysis module; nothing here counts.

>>> print(protocols_markdown([]))
(no rows)
"""

from __future__ import annotations

import math
from typing import Sequence

from tokstudy.analysis.model_errors.correlation import Correlation
from tokstudy.analysis.model_errors.protocols import (
    BOUNDARIES,
    PAPER_R,
    PROTOCOL_MEASURES,
    Protocol,
    ProtocolCorrelations,
    nearest_protocol,
    protocol_distances,
)
from tokstudy.report.numbers import json_number
from tokstudy.report.tables import markdown_table

_UNIT_ROWS = (("words", "all words"), ("ne_words", "NE words"), ("entities", "gold entities"))
_ERROR_ROWS = (("label", "label wrong"), ("entity", "entity missed"))
_COLUMN = {
    ("n_pieces", "counted"): "pieces, ▁ counted",
    ("n_pieces", "dropped"): "pieces, ▁ dropped",
    ("extra_pieces", "counted"): "pieces − 1, ▁ counted",
    ("extra_pieces", "dropped"): "pieces − 1, ▁ dropped",
}


def protocol_rows(results: Sequence[ProtocolCorrelations]) -> list[dict]:
    """One row per (tokenizer, model, protocol): r, p, CI, Spearman, n (plain numbers, for CSV and JSON)."""
    rows = []
    for res in results:
        for one in res.results:
            p, c = one.protocol, one.correlation
            rows.append(
                {
                    "tokenizer": res.tokenizer,
                    "model": res.model,
                    "dataset": res.dataset,
                    "subset": res.subset,
                    "unit": p.unit,
                    "measure": p.measure,
                    "error": p.error,
                    "lone_boundary": p.boundary,
                    "r": json_number(c.r),
                    "p_value": json_number(c.p_value),
                    "low": json_number(c.low),
                    "high": json_number(c.high),
                    "spearman": json_number(c.spearman),
                    "n": c.n,
                }
            )
    return rows


def _cell(c: Correlation | None) -> str:
    """``r [low, high]``, ``–`` where r was not computed or is undefined."""
    if c is None or math.isnan(c.r):
        return "–"
    return f"{c.r:.3f}" if math.isnan(c.low) else f"{c.r:.3f} [{c.low:.3f}, {c.high:.3f}]"


def _one_model_each(results: Sequence[ProtocolCorrelations]) -> bool:
    """Whether every tokenizer has one model, so that the tokenizer alone names a row."""
    return len({res.tokenizer for res in results}) == len(results)


def _who(res: ProtocolCorrelations, short: bool) -> dict:
    return {"tokenizer": res.tokenizer} if short else {"tokenizer": res.tokenizer, "model": res.model}


def _wide_rows(results: Sequence[ProtocolCorrelations]) -> list[dict]:
    """Rows (tokenizer[, model], unit, error) x columns (measure, lone boundary), each cell ``r [CI]``; the
    model column only where a tokenizer has several models (else the models are named below the table)."""
    short = _one_model_each(results)
    rows = []
    for res in results:
        computed = {one.protocol: one.correlation for one in res.results}
        for unit, unit_text in _UNIT_ROWS:
            for error, error_text in _ERROR_ROWS:
                row = {**_who(res, short), "over": unit_text, "wrong when": error_text}
                cells = [
                    (_COLUMN[measure, boundary], computed.get(Protocol(unit, measure, error, boundary)))
                    for measure in PROTOCOL_MEASURES
                    for boundary in BOUNDARIES
                ]
                row.update({column: _cell(c) for column, c in cells})
                row["n"] = next((c.n for _, c in cells if c is not None), None)
                rows.append(row)
    return rows


def nearest_sentence(results: Sequence[ProtocolCorrelations], *, target: float = PAPER_R) -> str:
    """One sentence: the protocol nearest ``target`` over all models (and any that tie), with its r per model."""
    found = nearest_protocol(results, target)
    if found is None:
        return f"No protocol gives a defined r for every model, so none is nearest r = {target:g}."
    protocols, distance = found
    short = _one_model_each(results)
    each = "; ".join(f"{' / '.join(_who(res, short).values())}: r = {res.get(protocols[0]).r:.3f}" for res in results)
    ties = " = ".join(f"**{p.describe()}**" for p in protocols)
    text = (
        f"Nearest the paper's r = {target:g}: {ties} (mean |r − {target:g}| = {distance:.3f} over "
        f"{len(results)} model(s); {each})."
    )
    after = [(p, d) for p, d in protocol_distances(results, target) if p not in protocols][:1]
    if after:
        text += f" Next: {after[0][0].describe()} ({after[0][1]:.3f})."
    return text


def protocols_markdown(results: Sequence[ProtocolCorrelations], *, target: float = PAPER_R) -> str:
    """The section's body: the side-by-side table, the nearest protocol, and how pieces were counted."""
    if not results:
        return "(no rows)"
    boot = results[0].bootstrap
    interval = (
        f"with its {100 * boot.confidence:g} % bootstrap CI over sentences ({boot.n_resamples} resamples; an "
        "entity's sentence is resampled with it)"
        if boot.n_resamples
        else "without a bootstrap CI (0 resamples)"
    )
    lines = [
        f"Pearson r of segmentation against errors under each protocol, {interval}.",
        "",
        markdown_table(_wide_rows(results)),
        "",
        nearest_sentence(results, target=target),
    ]
    if _one_model_each(results):
        lines += ["", "Models: " + "; ".join(f"{res.tokenizer}: {res.model}" for res in results) + "."]
    subsets = sorted({res.subset for res in results if res.subset})
    if subsets:
        lines += ["", f"The predictions cover part of their split ({', '.join(subsets)}): every r is over those only."]
    policies = sorted({p for res in results for p in (res.counted_policy, res.dropped_policy) if p})
    lines += ["", "Counting: " + " / ".join(policies) + "."]
    return "\n".join(lines)
