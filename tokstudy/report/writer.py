"""``write_report``: every table and figure for a segmentation table, in one directory with an index.

Layout of ``out_dir``::

    index.md                      links and the key tables inline
    table4.{md,csv,json}          additional segmentation NE / non-NE / all per tokenizer
    summary.{md,csv,json}         fertility, continued %, unknown %, pieces per continued word
    intrinsic.{md,csv,json}       chars/bytes per piece, Shannon entropy, Rényi efficiency, vocabulary use
    by_<grouping>.{md,csv,json}   breakdowns (entity type, position, language, dataset)
    examples.{md,csv,json}        Table 3: sentences, pieces per tokenizer, gold, predictions
    correlation.{md,csv,json}     error correlation (only with predictions)
    error_by_pieces.{md,csv}      error rate by number of pieces (only with predictions)
    attribution.{md,csv,json}     odds ratio of an error per extra piece, adjusted (only with predictions)
    parity.{md,csv,json}          parity on parallel text (only when given)
    figures/*.png, figures/*.svg

>>> # write_report(table, "report/", predictions=[aligned], parity_results=parity(paras, segs))
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from tokstudy.analysis.table import SegmentationTable
from tokstudy.report import attribution as ra
from tokstudy.report import tables as rt
from tokstudy.report.table3 import example_rows, examples, examples_markdown, select_sentences


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    index: Path
    files: list[Path] = field(default_factory=list)


def _three(out: Path, stem: str, markdown: str, rows: list[dict], obj) -> list[Path]:
    paths = [out / f"{stem}.md"]
    paths[0].write_text(markdown + "\n", encoding="utf-8")
    paths.append(rt.write_csv(rows, out / f"{stem}.csv"))
    if obj is not None:
        paths.append(rt.write_json(obj, out / f"{stem}.json"))
    return paths


def write_report(
    table: SegmentationTable,
    out_dir: str | os.PathLike,
    *,
    predictions: Sequence = (),
    train=None,
    train_label: str | None = None,
    parity_results: Sequence | None = None,
    sentences: Sequence[int] | None = None,
    n_examples: int = 3,
    groupings: Sequence[str] | None = None,
    measure: str = "n_pieces",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    figures: bool = True,
) -> ReportFiles:
    """Write all tables (Markdown, CSV, JSON) and figures (PNG, SVG) into ``out_dir``.

    Args:
        table: the segmentation table (one or more tokenizers and datasets).
        predictions: aligned predictions (:func:`~tokstudy.analysis.alignment.align_predictions`),
            one per model; they add the correlation tables, the error figure and the
            predicted labels of Table 3, and the attribution section.
        train: the fine-tuning training split(s) or word counts, for the attribution's
            frequency covariates (:func:`~tokstudy.analysis.attribution.attribute_errors`);
            ``train_label`` names it.
        parity_results: results of :func:`~tokstudy.analysis.parity.parity`, if any.
        sentences: global sentence indices for Table 3; default: chosen automatically.
        n_examples: how many sentences to choose automatically.
        groupings: breakdowns to write; default entity type and position, plus
            language and dataset when the table has several.
        measure: segmentation measure for the correlation.
        n_resamples, confidence, seed: the sentence bootstrap.
        figures: draw the figures (needs matplotlib).
    """
    from tokstudy.analysis.correlation import correlate_errors
    from tokstudy.analysis.stats import default_groupings, table_statistics

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    kw = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    names = table.tokenizer_names
    files: list[Path] = []
    index = [
        "# Segmentation report\n",
        f"{len(table):,} words, {table.n_sentences:,} sentences, {table.n_entities:,} entities in "
        f"{', '.join(table.datasets)}; tokenizers: {', '.join(names)}. Intervals: {confidence:.0%} "
        f"bootstrap over sentences, {n_resamples} resamples, seed {seed}.\n",
    ]

    groupings = list(groupings) if groupings is not None else default_groupings(table)
    stats = table_statistics(table, names, groupings=groupings, **kw)
    t4 = stats.table4
    md = rt.table4_markdown(t4)
    files += _three(out, "table4", md, rt.table4_rows(t4), t4)
    index += [
        "## Table 4: additional segmentation\n",
        md,
        "\n[table4.md](table4.md) · [csv](table4.csv) · [json](table4.json)\n",
    ]

    summ = stats.summary
    md = rt.summary_markdown(summ)
    files += _three(out, "summary", md, rt.summary_rows(summ), summ)
    index += ["## Fertility, continued words, unknown pieces\n", md, "\n[summary.md](summary.md)\n"]

    ins = stats.intrinsic
    md = rt.intrinsic_markdown(ins)
    files += _three(out, "intrinsic", md, rt.intrinsic_rows(ins), ins)
    index += ["## Intrinsic metrics: compression, entropy, vocabulary use\n", md, "\n[intrinsic.md](intrinsic.md)\n"]

    grouped = stats.by
    for by in groupings:
        md = rt.grouped_markdown(grouped[by])
        files += _three(out, f"by_{by}", md, rt.grouped_rows(grouped[by]), grouped[by])
        index += [f"## Additional segmentation by {by.replace('_', ' ')}\n", md, f"\n[by_{by}.md](by_{by}.md)\n"]

    chosen = list(sentences) if sentences is not None else select_sentences(table, n_examples)
    exs = examples(table, chosen, predictions)
    md = examples_markdown(exs)
    files += _three(out, "examples", md, example_rows(exs), exs)
    index += ["## Table 3: examples\n", md, "\n[examples.md](examples.md)\n"]

    corrs = []
    for a in predictions:
        for t in names:
            corrs.append(correlate_errors(table, a, t, measure=measure, **kw))
    if corrs:
        md = rt.correlation_markdown(corrs)
        files += _three(out, "correlation", md, rt.correlation_rows(corrs), corrs)
        pm = rt.pieces_markdown(corrs)
        files += _three(out, "error_by_pieces", pm, rt.pieces_rows(corrs), None)
        index += ["## Segmentation vs model errors\n", md, "\n### Error rate by number of pieces\n", pm, "\n"]
        attr_rows, attr_cells = _attribution(table, predictions, names, train, train_label, confidence)
        files += _three(
            out,
            "attribution",
            ra.attribution_section(attr_rows, attr_cells),
            attr_rows,
            {"attribution": attr_rows, "by_frequency": attr_cells},
        )
        fig = "figures/odds_ratios.png" if figures else None
        index += [
            "## Does segmentation predict errors beyond frequency, entity status and length?\n",
            ra.attribution_section(attr_rows, attr_cells, figure=fig),
            "\n",
        ]

    if parity_results:
        md = rt.parity_markdown(parity_results)
        files += _three(out, "parity", md, rt.parity_rows(parity_results), list(parity_results))
        index += ["## Parity on parallel text\n", md, "\n"]

    if figures:
        from tokstudy.report import figures as fg

        figdir = out / "figures"
        vocab = {c.name: c.vocab_size for c in table.tokenizers.values()}
        figs = fg.plot_additional_segmentation(t4, figdir / "additional_segmentation", vocab_sizes=vocab)
        if "language" in grouped:
            figs += fg.plot_by_group(grouped["language"], figdir / "by_language")
        if "entity_type" in grouped and any(g.groups for g in grouped["entity_type"]):
            figs += fg.plot_by_group(grouped["entity_type"], figdir / "by_entity_type")
        if corrs:
            figs += fg.plot_error_by_pieces(corrs, figdir / "error_by_pieces")
            figs += fg.plot_odds_ratios(attr_rows, figdir / "odds_ratios")
        if parity_results:
            figs += fg.plot_parity(parity_results, figdir / "parity")
        files += figs
        index += ["## Figures\n"] + [f"![{p.stem}](figures/{p.name})\n" for p in figs if p.suffix == ".png"]

    index_path = out / "index.md"
    index_path.write_text("\n".join(index) + "\n", encoding="utf-8")
    return ReportFiles(index_path, [index_path] + files)


def _attribution(table, predictions, names, train, train_label, confidence) -> tuple[list[dict], list[dict]]:
    """Attribution rows and frequency cells of every (model, tokenizer)."""
    from tokstudy.analysis.attribution import attribute_errors, word_counts

    counts = None if train is None else word_counts(train)
    res = [
        attribute_errors(
            table,
            a,
            t,
            train=counts,
            train_label=train_label or ("training split" if counts else None),
            confidence=confidence,
        )
        for a in predictions
        for t in names
    ]
    return ra.attribution_rows(res), ra.frequency_rows(res)
