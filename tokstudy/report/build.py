"""Each table of a report as three files, ``<stem>.md``, ``<stem>.csv`` and ``<stem>.json``, in one schema.

The JSON file of a table is always :func:`~tokstudy.report.tables.to_jsonable` of the analysis
results themselves (the frozen dataclasses of :mod:`tokstudy.analysis`), the CSV file its flat
rows (``*_rows`` of :mod:`tokstudy.report.tables`) and the Markdown file what a reader sees.
``tokstudy report`` and the study write their tables through these functions, so a
``table4.json`` means one thing wherever it was written (schemas: ``docs/analysis.md``).

>>> # md, paths = write_table4(table_statistics(table).table4, "out/")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from tokstudy.report import tables as rt


def write_three(out: str | os.PathLike, stem: str, markdown: str, rows: list[dict], obj) -> list[Path]:
    """Write ``stem.md`` (``markdown``), ``stem.csv`` (``rows``) and, unless ``obj`` is None, ``stem.json``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.md"]
    paths[0].write_text(markdown + "\n", encoding="utf-8")
    paths.append(rt.write_csv(rows, out / f"{stem}.csv"))
    if obj is not None:
        paths.append(rt.write_json(obj, out / f"{stem}.json"))
    return paths


def write_table4(results: Sequence, out: str | os.PathLike) -> tuple[str, list[Path]]:
    """Table 4 (an :class:`~tokstudy.analysis.stats.estimates.AdditionalSegmentation` each); returns its Markdown."""
    md = rt.table4_markdown(results)
    return md, write_three(out, "table4", md, rt.table4_rows(results), list(results))


def write_summary(summaries: Sequence, out: str | os.PathLike) -> tuple[str, list[Path]]:
    """Fertility, continued words, unknown pieces (:class:`~tokstudy.analysis.stats.estimates.SegmentationSummary`)."""
    md = rt.summary_markdown(summaries)
    return md, write_three(out, "summary", md, rt.summary_rows(summaries), list(summaries))


def write_intrinsic(summaries: Sequence, out: str | os.PathLike) -> tuple[str, list[Path]]:
    """The intrinsic metrics per tokenizer and group."""
    md = rt.intrinsic_markdown(summaries)
    return md, write_three(out, "intrinsic", md, rt.intrinsic_rows(summaries), list(summaries))


def write_grouped(by: str, grouped: Sequence, out: str | os.PathLike) -> tuple[str, list[Path]]:
    """``by_<by>``: additional segmentation per group (:class:`~tokstudy.analysis.stats.estimates.GroupedEstimates`)."""
    md = rt.grouped_markdown(grouped)
    return md, write_three(out, f"by_{by}", md, rt.grouped_rows(grouped), list(grouped))


def write_correlation(results: Sequence, out: str | os.PathLike) -> tuple[str, str, list[Path]]:
    """``correlation`` and ``error_by_pieces`` (:class:`~tokstudy.analysis.model_errors.correlation.ErrorCorrelation`);
    returns both Markdown tables."""
    md, pm = rt.correlation_markdown(results), rt.pieces_markdown(results)
    paths = write_three(out, "correlation", md, rt.correlation_rows(results), list(results))
    return md, pm, paths + write_three(out, "error_by_pieces", pm, rt.pieces_rows(results), None)


def write_attribution(rows: list[dict], cells: list[dict], out: str | os.PathLike) -> list[Path]:
    """``attribution``: the odds-ratio rows and the frequency cells (:mod:`tokstudy.report.attribution`)."""
    from tokstudy.report.attribution import attribution_section

    md = attribution_section(rows, cells)
    return write_three(out, "attribution", md, rows, {"attribution": rows, "by_frequency": cells})


def write_parity(results: Sequence, out: str | os.PathLike) -> tuple[str, list[Path]]:
    """``parity`` on parallel text (:func:`~tokstudy.analysis.stats.parity.parity` results)."""
    md = rt.parity_markdown(results)
    return md, write_three(out, "parity", md, rt.parity_rows(results), list(results))


def write_repairs(repairs: Sequence[dict], out: str | os.PathLike) -> tuple[str, list[Path]]:
    """``repairs``: the tags lenient reading repaired, per dataset (the dicts of
    :meth:`~tokstudy.data.repairs.RepairLog.to_dict` with a ``dataset`` key, as ``stats --json`` holds them under
    ``"repairs"``); the CSV has one row per place kept (the first :data:`~tokstudy.data.repairs.FIRST`)."""
    from tokstudy.data.repairs import KINDS

    parts, rows = [], []
    for r in repairs:
        s = "" if r["total"] == 1 else "s"
        source = f" in `{r['source']}`" if r["source"] else ""
        parts.append(f"**{r['dataset']}**: {r['total']} tag{s} repaired{source} (lenient reading).")
        parts.append("\n".join(f"- {n} x {KINDS[k]}" for k, n in r["by_kind"].items()))
        places = [{"dataset": r["dataset"], **p} for p in r["first"]]
        rows += places
        shown = [{"where": p["where"], "tag": p["tag"], "after": p["after"], "read as": p["became"]} for p in places]
        more = r["total"] - len(places)
        parts.append(rt.markdown_table(shown) + (f"\n\n... and {more} more" if more > 0 else ""))
    md = "\n\n".join(parts)
    return md, write_three(out, "repairs", md, rows, list(repairs))
