"""``write_report``: every table and figure for a segmentation table, in one directory with an index.

Layout of ``out_dir``::

    index.md, index.html          the key tables inline, with links (tokstudy.report.assemble)
    table4.{md,csv,json}          additional segmentation NE / non-NE / all per tokenizer
    summary.{md,csv,json}         fertility, continued %, unknown %, byte-fallback %, byte pieces %, pieces per
                                  continued word
    intrinsic.{md,csv,json}       chars/bytes per piece, Shannon entropy, Rényi efficiency, vocabulary use
    by_<grouping>.{md,csv,json}   breakdowns (entity type, position, language, dataset)
    examples.{md,csv,json}        Table 3: sentences, pieces per tokenizer, gold, predictions
    correlation.{md,csv,json}     error correlation (only with predictions)
    error_by_pieces.{md,csv}      error rate by number of pieces (only with predictions)
    attribution.{md,csv,json}     odds ratio of an error per extra piece, adjusted (only with predictions)
    shredded.{md,csv,json}        the frequent words each tokenizer splits into 3+ pieces (tokstudy.report.shredded)
    morph.{md,csv,json}           MorphScore, boundary P/R/F1 on gold segmentations (only when given)
    pieces.{md,csv,json}          pieces that disagree, each aggregation's F1 and r (only with per-piece predictions)
    parity.{md,csv,json}          parity on parallel text (only when given)
    repairs.{md,csv,json}         tags lenient reading repaired, with their places (only when it repaired some)
    figures/*.png, figures/*.svg

Computed here, made into tables by :mod:`tokstudy.report.build` (one
:class:`~tokstudy.report.result.ReportResult`), written by :mod:`tokstudy.report.result` and assembled
into the index by :mod:`tokstudy.report.assemble`, as the study's report is.

>>> # write_report(table, "report/", predictions=[aligned], parity_results=parity(paras, segs))
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from tokstudy.analysis.model_errors.attribution import attribute_errors, word_counts
from tokstudy.analysis.model_errors.correlation import correlate_errors
from tokstudy.analysis.stats import default_groupings, table_statistics
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.per_language import language_table
from tokstudy.analysis.stats.shredded import shredded_table
from tokstudy.analysis.table import SegmentationTable
from tokstudy.analysis.table.bytepieces import coverage_notes
from tokstudy.data.repairs import RepairLog
from tokstudy.report import build
from tokstudy.report import figures as fg
from tokstudy.report.assemble import report_sections, write_document
from tokstudy.report.morph import morph_report
from tokstudy.report.per_language import languages_report, plot_languages
from tokstudy.report.pieces import pieces_report
from tokstudy.report.result import Breakdown, ReportResult, write_result
from tokstudy.report.shredded import shredded_report
from tokstudy.report.table3 import examples, select_sentences


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
    morph_results: Sequence | None = None,
    piece_results: Sequence | None = None,
    sentences: Sequence[int] | None = None,
    n_examples: int = 3,
    groupings: Sequence[str] | None = None,
    measure: str = "n_pieces",
    boot: BootstrapSettings = BootstrapSettings(),
    figures: bool = True,
    repairs: Mapping[str, RepairLog] | None = None,
) -> ReportFiles:
    """Write all tables (Markdown, CSV, JSON) and figures (PNG, SVG) into ``out_dir``.

    Args:
        table: the segmentation table (one or more tokenizers and datasets).
        predictions: aligned predictions
            (:func:`~tokstudy.analysis.model_errors.aligned_predictions.align_predictions`), one per model;
            they add the correlation tables, the error figure and the predicted labels of Table 3,
            and the attribution section.
        train: the fine-tuning training split(s) or word counts, for the attribution's
            frequency covariates (:func:`~tokstudy.analysis.model_errors.attribution.attribute_errors`);
            ``train_label`` names it.
        parity_results: results of :func:`~tokstudy.analysis.stats.parity.parity`, if any.
        morph_results: results of :func:`~tokstudy.analysis.morph.morph_table` (gold morpheme segmentations), if any.
        piece_results: piece agreement of models' per-piece predictions
            (:func:`~tokstudy.analysis.model_errors.piece_agreement.piece_agreement`, one per model), if any: the
            section the study shows with ``finetune.compare_labelling``.
        sentences: global sentence indices for Table 3; default: chosen automatically.
        n_examples: how many sentences to choose automatically.
        groupings: breakdowns to write; default entity type and position, plus
            language and dataset when the table has several.
        measure: segmentation measure for the correlation.
        boot: the sentence bootstrap (resamples, confidence, seed).
        figures: draw the figures (needs matplotlib).
        repairs: what lenient reading repaired, ``{dataset name: its repair log}`` with the files named as they
            may be shown (:func:`tokstudy.inputs.load.repair_logs`); shown first, since every figure is computed
            on the repaired tags.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    groupings = list(groupings) if groupings is not None else default_groupings(table)
    stats = table_statistics(table, table.tokenizer_names, groupings=groupings, bootstrap=boot)
    languages = language_table(table, bootstrap=boot) if len(table.datasets) > 1 else None
    chosen = list(sentences) if sentences is not None else select_sentences(table, n_examples)
    corrs, attributions = _model_errors(table, predictions, train, train_label, measure, boot)
    result = ReportResult(
        build.segmentation(stats.table4, stats.summary, stats.by, stats.intrinsic, coverage_notes(table)),
        errors=build.errors(corrs, attributions) if corrs else None,
        examples=build.examples(examples(table, chosen, predictions)),
        parity=build.parity(parity_results) if parity_results else None,
        repairs=build.repairs(repairs) if repairs else None,
        shredded=shredded_report(shredded_table(table)),
        morph=morph_report(morph_results) if morph_results else None,
        pieces=pieces_report(piece_results) if piece_results else None,
        languages=languages_report(languages) if languages is not None else None,
    )
    files = write_result(result, out)
    if figures:
        drawn = _draw_figures(out / "figures", table, stats, corrs, result, languages, parity_results)
        files += drawn
        result = replace(result, figures=tuple(f"figures/{p.name}" for p in drawn))
    intro = (
        f"{len(table):,} words, {table.n_sentences:,} sentences, {table.n_entities:,} entities in "
        f"{', '.join(table.datasets)}; tokenizers: {', '.join(table.tokenizer_names)}. Intervals: "
        f"{boot.confidence:.0%} bootstrap over sentences, {boot.n_resamples} resamples, seed {boot.seed}."
    )
    written = write_document(out, "Segmentation report", report_sections(result), intro=intro, stem="index")
    return ReportFiles(written["markdown"], [written["markdown"], written["html"]] + files)


def _model_errors(table, predictions, train, train_label, measure: str, boot: BootstrapSettings) -> tuple[list, list]:
    """The correlation and the attribution of every (model, tokenizer), with predictions."""
    names = table.tokenizer_names
    corrs = [correlate_errors(table, a, t, measure=measure, bootstrap=boot) for a in predictions for t in names]
    counts = None if train is None or not corrs else word_counts(train)
    label = train_label or ("training split" if counts else None)
    attributions = [
        attribute_errors(table, a, t, train=counts, train_label=label, confidence=boot.confidence)
        for a in predictions
        for t in names
    ]
    return corrs, attributions


def _draw_figures(figdir: Path, table, stats, corrs, result: ReportResult, languages, parity_results) -> list[Path]:
    """Every figure (PNG and SVG) in ``figdir``, in the order the index's Figures section shows them."""

    grouped = stats.by
    vocab = {c.name: c.vocab_size for c in table.tokenizers.values()}
    figs = fg.plot_additional_segmentation(stats.table4, figdir / "additional_segmentation", vocab_sizes=vocab)
    if Breakdown.LANGUAGE in grouped:
        figs += fg.plot_by_group(grouped[Breakdown.LANGUAGE], figdir / "by_language")
    if Breakdown.ENTITY_TYPE in grouped and any(g.groups for g in grouped[Breakdown.ENTITY_TYPE]):
        figs += fg.plot_by_group(grouped[Breakdown.ENTITY_TYPE], figdir / "by_entity_type")
    if result.errors is not None:
        figs += fg.plot_errors(corrs, result.errors.attribution_rows, figdir)
    if parity_results:
        figs += fg.plot_parity(parity_results, figdir / "parity")
    if languages is not None:
        figs += plot_languages(languages, figdir / "languages")
    return figs
