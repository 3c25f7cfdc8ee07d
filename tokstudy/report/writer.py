"""``write_report``: every table and figure for a segmentation table, in one directory with an index.

Layout of ``out_dir``::

    index.md, index.html          the key tables inline, with links (tokstudy.report.document)
    table4.{md,csv,json}          additional segmentation NE / non-NE / all per tokenizer
    summary.{md,csv,json}         fertility, continued %, unknown %, byte-fallback %, pieces per continued word
    intrinsic.{md,csv,json}       chars/bytes per piece, Shannon entropy, Rényi efficiency, vocabulary use
    by_<grouping>.{md,csv,json}   breakdowns (entity type, position, language, dataset)
    examples.{md,csv,json}        Table 3: sentences, pieces per tokenizer, gold, predictions
    correlation.{md,csv,json}     error correlation (only with predictions)
    error_by_pieces.{md,csv}      error rate by number of pieces (only with predictions)
    attribution.{md,csv,json}     odds ratio of an error per extra piece, adjusted (only with predictions)
    parity.{md,csv,json}          parity on parallel text (only when given)
    repairs.{md,csv,json}         tags lenient reading repaired, with their places (only when it repaired some)
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
from tokstudy.report import files as rf
from tokstudy.report.document import Section, write_document
from tokstudy.report.table3 import example_rows, examples, examples_markdown, select_sentences


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    index: Path
    files: list[Path] = field(default_factory=list)


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
    repairs: Sequence[dict] = (),
) -> ReportFiles:
    """Write all tables (Markdown, CSV, JSON) and figures (PNG, SVG) into ``out_dir``.

    Args:
        table: the segmentation table (one or more tokenizers and datasets).
        predictions: aligned predictions (:func:`~tokstudy.analysis.model_errors.alignment.align_predictions`),
            one per model; they add the correlation tables, the error figure and the
            predicted labels of Table 3, and the attribution section.
        train: the fine-tuning training split(s) or word counts, for the attribution's
            frequency covariates (:func:`~tokstudy.analysis.model_errors.attribution.attribute_errors`);
            ``train_label`` names it.
        parity_results: results of :func:`~tokstudy.analysis.stats.parity.parity`, if any.
        sentences: global sentence indices for Table 3; default: chosen automatically.
        n_examples: how many sentences to choose automatically.
        groupings: breakdowns to write; default entity type and position, plus
            language and dataset when the table has several.
        measure: segmentation measure for the correlation.
        n_resamples, confidence, seed: the sentence bootstrap.
        figures: draw the figures (needs matplotlib).
        repairs: what lenient reading repaired, one dict per dataset (its name under ``"dataset"`` beside
            :meth:`~tokstudy.data.repairs.RepairLog.to_dict`, as ``stats --json`` holds them under
            ``"repairs"``); shown first, since every figure is computed on the repaired tags.
    """
    from tokstudy.analysis.model_errors.correlation import correlate_errors
    from tokstudy.analysis.stats import default_groupings, table_statistics
    from tokstudy.analysis.table.coverage import coverage_notes

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    kw = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    names = table.tokenizer_names
    files: list[Path] = []
    intro = (
        f"{len(table):,} words, {table.n_sentences:,} sentences, {table.n_entities:,} entities in "
        f"{', '.join(table.datasets)}; tokenizers: {', '.join(names)}. Intervals: {confidence:.0%} "
        f"bootstrap over sentences, {n_resamples} resamples, seed {seed}."
    )
    sections: list[Section] = []
    if repairs:
        md, paths = rf.write_repairs(repairs, out)
        files += paths
        sections.append(Section("Tags repaired by lenient reading", md + "\n\n[repairs.md](repairs.md)"))

    groupings = list(groupings) if groupings is not None else default_groupings(table)
    stats = table_statistics(table, names, groupings=groupings, **kw)
    md, paths = rf.write_table4(stats.table4, out)
    files += paths
    sections.append(
        Section(
            "Table 4: additional segmentation",
            md + "\n\n[table4.md](table4.md) · [csv](table4.csv) · [json](table4.json)",
        )
    )
    md, paths = rf.write_summary(stats.summary, out)
    files += paths
    # where a tokenizer does not cover a dataset's text, its figures there measure unknown pieces or bytes
    notes = "".join(f"\n\n> **Warning:** {note}" for note in coverage_notes(table))
    sections.append(
        Section(
            "Fertility, continued words, unknown and byte-fallback pieces", md + notes + "\n\n[summary.md](summary.md)"
        )
    )
    md, paths = rf.write_intrinsic(stats.intrinsic, out)
    files += paths
    sections.append(
        Section("Intrinsic metrics: compression, entropy, vocabulary use", md + "\n\n[intrinsic.md](intrinsic.md)")
    )
    grouped = stats.by
    for by in groupings:
        md, paths = rf.write_grouped(by, grouped[by], out)
        files += paths
        sections.append(
            Section(f"Additional segmentation by {by.replace('_', ' ')}", md + f"\n\n[by_{by}.md](by_{by}.md)")
        )

    chosen = list(sentences) if sentences is not None else select_sentences(table, n_examples)
    exs = examples(table, chosen, predictions)
    md = examples_markdown(exs)
    files += rf.write_three(out, "examples", md, example_rows(exs), exs)
    sections.append(Section("Table 3: examples", md + "\n\n[examples.md](examples.md)"))

    fig = None  # the odds-ratio figure, shown in the attribution section
    corrs = [correlate_errors(table, a, t, measure=measure, **kw) for a in predictions for t in names]
    if corrs:
        md, pm, paths = rf.write_correlation(corrs, out)
        files += paths
        sections.append(Section("Segmentation vs model errors", md + "\n\n### Error rate by number of pieces\n\n" + pm))
        attr_rows, attr_cells = _attribution(table, predictions, names, train, train_label, confidence)
        files += rf.write_attribution(attr_rows, attr_cells, out)
        fig = "figures/odds_ratios.png" if figures else None
        sections.append(
            Section(
                "Does segmentation predict errors beyond frequency, entity status and length?",
                ra.attribution_section(attr_rows, attr_cells, figure=fig),
            )
        )

    if parity_results:
        md, paths = rf.write_parity(parity_results, out)
        files += paths
        sections.append(Section("Parity on parallel text", md))

    if figures:
        from tokstudy.report import figures as fg

        figdir = out / "figures"
        vocab = {c.name: c.vocab_size for c in table.tokenizers.values()}
        figs = fg.plot_additional_segmentation(stats.table4, figdir / "additional_segmentation", vocab_sizes=vocab)
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
        # the odds-ratio figure is already shown inside the attribution section
        shown = [p for p in figs if p.suffix == ".png" and not (fig and p.name == Path(fig).name)]
        sections.append(Section("Figures", "\n\n".join(f"![{p.stem}](figures/{p.name})" for p in shown)))

    written = write_document(out, "Segmentation report", sections, intro=intro, stem="index")
    return ReportFiles(written["markdown"], [written["markdown"], written["html"]] + files)


def _attribution(table, predictions, names, train, train_label, confidence) -> tuple[list[dict], list[dict]]:
    """Attribution rows and frequency cells of every (model, tokenizer)."""
    from tokstudy.analysis.model_errors.attribution import attribute_errors, word_counts

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
