"""``write_report``: every table and figure for a segmentation table, in one directory with an index.

Layout of ``out_dir``::

    index.md, index.html          the key tables inline, with links (tokstudy.report.document)
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
from tokstudy.report import tables as rt
from tokstudy.report.document import Section, write_document
from tokstudy.report.morph import write_morph
from tokstudy.report.shredded import write_shredded
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
    morph_results: Sequence | None = None,
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
        predictions: aligned predictions
            (:func:`~tokstudy.analysis.model_errors.aligned_predictions.align_predictions`), one per model;
            they add the correlation tables, the error figure and the predicted labels of Table 3,
            and the attribution section.
        train: the fine-tuning training split(s) or word counts, for the attribution's
            frequency covariates (:func:`~tokstudy.analysis.model_errors.attribution.attribute_errors`);
            ``train_label`` names it.
        parity_results: results of :func:`~tokstudy.analysis.stats.parity.parity`, if any.
        morph_results: results of :func:`~tokstudy.analysis.morph.morph_table` (gold morpheme segmentations), if any.
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
    from tokstudy.analysis.stats import default_groupings, table_statistics
    from tokstudy.analysis.stats.shredded import shredded_table

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    kw = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    doc = _Index(out)
    if repairs:
        md, paths = rf.write_repairs(repairs, out)
        doc.add("Tags repaired by lenient reading", md + "\n\n[repairs.md](repairs.md)", paths)
    groupings = list(groupings) if groupings is not None else default_groupings(table)
    stats = table_statistics(table, table.tokenizer_names, groupings=groupings, **kw)
    _segmentation_sections(doc, table, stats, groupings)
    doc.add("Shredded frequent words", *_linked(write_shredded(shredded_table(table), out), "shredded"))
    if morph_results:
        doc.add("Morpheme boundaries", *_linked(write_morph(morph_results, out), "morph"))
    if len(table.datasets) > 1:
        _languages_section(doc, table, kw, figures=figures)
    _examples_section(doc, table, predictions, sentences, n_examples)
    errors = _error_sections(doc, table, predictions, train, train_label, measure, kw, figures=figures)
    if parity_results:
        md, paths = rf.write_parity(parity_results, out)
        doc.add("Parity on parallel text", md, paths)
    if figures:
        _figures_section(doc, table, stats, errors, parity_results)
    intro = (
        f"{len(table):,} words, {table.n_sentences:,} sentences, {table.n_entities:,} entities in "
        f"{', '.join(table.datasets)}; tokenizers: {', '.join(table.tokenizer_names)}. Intervals: {confidence:.0%} "
        f"bootstrap over sentences, {n_resamples} resamples, seed {seed}."
    )
    written = write_document(out, "Segmentation report", doc.sections, intro=intro, stem="index")
    return ReportFiles(written["markdown"], [written["markdown"], written["html"]] + doc.files)


def _linked(written: tuple[str, list[Path]], stem: str) -> tuple[str, list[Path]]:
    """A section's Markdown with links to its three files, and their paths."""
    md, paths = written
    return md + f"\n\n[{stem}.md]({stem}.md) · [csv]({stem}.csv) · [json]({stem}.json)", paths


@dataclass
class _Index:
    """The index's sections and the files written so far, in the order the report shows them."""

    out: Path
    sections: list[Section] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def add(self, title: str, body: str, paths: Sequence[Path] = ()) -> None:
        self.files += paths
        self.sections.append(Section(title, body))


@dataclass(frozen=True)
class _Errors:
    """What the model-error sections computed, for the figures."""

    correlations: list
    attribution_rows: list[dict]
    odds_figure: str | None
    """The odds-ratio figure, already shown in the attribution section."""


def _segmentation_sections(doc: _Index, table: SegmentationTable, stats, groupings: Sequence[str]) -> None:
    """Table 4, the summary (with coverage warnings), the intrinsic metrics and one breakdown per grouping."""
    from tokstudy.analysis.table.bytepieces import coverage_notes

    md, paths = rf.write_table4(stats.table4, doc.out)
    doc.add(
        "Table 4: additional segmentation",
        md + "\n\n[table4.md](table4.md) · [csv](table4.csv) · [json](table4.json)",
        paths,
    )
    md, paths = rf.write_summary(stats.summary, doc.out)
    # where a tokenizer does not cover a dataset's text, its figures there measure unknown pieces or bytes
    notes = "".join(f"\n\n> **Warning:** {note}" for note in coverage_notes(table))
    doc.add(
        "Fertility, continued words, unknown, byte-fallback and byte pieces",
        md + notes + "\n\n[summary.md](summary.md)",
        paths,
    )
    md, paths = rf.write_intrinsic(stats.intrinsic, doc.out)
    doc.add("Intrinsic metrics: compression, entropy, vocabulary use", md + "\n\n[intrinsic.md](intrinsic.md)", paths)
    for by in groupings:
        md, paths = rf.write_grouped(by, stats.by[by], doc.out)
        doc.add(f"Additional segmentation by {by.replace('_', ' ')}", md + f"\n\n[by_{by}.md](by_{by}.md)", paths)


def _languages_section(doc: _Index, table: SegmentationTable, kw: dict, *, figures: bool) -> None:
    """Table 4 per (dataset, language), largest NE - non-NE gap first, and its figure coloured by script."""
    from tokstudy.analysis.stats.languages import language_table
    from tokstudy.report.languages import language_rows, languages_markdown, plot_languages

    result = language_table(table, **kw)
    md = languages_markdown(result)
    paths = [doc.out / "languages.md", doc.out / "languages.csv"]
    paths[0].write_text(md + "\n", encoding="utf-8")
    rt.write_csv(language_rows(result), paths[1])
    if figures:
        paths += plot_languages(result, doc.out / "figures" / "languages")
        md += "\n\n![Gap per language](figures/languages.png)"
    doc.add("Table 4 per language", md + "\n\n[languages.md](languages.md) · [csv](languages.csv)", paths)


def _examples_section(
    doc: _Index, table: SegmentationTable, predictions: Sequence, sentences: Sequence[int] | None, n_examples: int
) -> None:
    """Table 3: the chosen sentences, their pieces per tokenizer, gold labels and predictions."""
    chosen = list(sentences) if sentences is not None else select_sentences(table, n_examples)
    exs = examples(table, chosen, predictions)
    md = examples_markdown(exs)
    doc.add(
        "Table 3: examples",
        md + "\n\n[examples.md](examples.md)",
        rf.write_three(doc.out, "examples", md, example_rows(exs), exs),
    )


def _error_sections(
    doc: _Index,
    table: SegmentationTable,
    predictions: Sequence,
    train,
    train_label: str | None,
    measure: str,
    kw: dict,
    *,
    figures: bool,
) -> _Errors:
    """With predictions: the correlation of segmentation with errors, and the attribution section."""
    from tokstudy.analysis.model_errors.correlation import correlate_errors

    names = table.tokenizer_names
    corrs = [correlate_errors(table, a, t, measure=measure, **kw) for a in predictions for t in names]
    if not corrs:
        return _Errors([], [], None)
    md, pm, paths = rf.write_correlation(corrs, doc.out)
    doc.add("Segmentation vs model errors", md + "\n\n### Error rate by number of pieces\n\n" + pm, paths)
    attr_rows, attr_cells = _attribution(table, predictions, names, train, train_label, kw["confidence"])
    fig = "figures/odds_ratios.png" if figures else None
    doc.add(
        "Does segmentation predict errors beyond frequency, entity status and length?",
        ra.attribution_section(attr_rows, attr_cells, figure=fig),
        rf.write_attribution(attr_rows, attr_cells, doc.out),
    )
    return _Errors(corrs, attr_rows, fig)


def _figures_section(
    doc: _Index, table: SegmentationTable, stats, errors: _Errors, parity_results: Sequence | None
) -> None:
    """Every figure (PNG and SVG) in ``figures/``; the index shows the PNGs not shown in a section already."""
    from tokstudy.report import figures as fg

    figdir = doc.out / "figures"
    grouped = stats.by
    vocab = {c.name: c.vocab_size for c in table.tokenizers.values()}
    figs = fg.plot_additional_segmentation(stats.table4, figdir / "additional_segmentation", vocab_sizes=vocab)
    if "language" in grouped:
        figs += fg.plot_by_group(grouped["language"], figdir / "by_language")
    if "entity_type" in grouped and any(g.groups for g in grouped["entity_type"]):
        figs += fg.plot_by_group(grouped["entity_type"], figdir / "by_entity_type")
    if errors.correlations:
        figs += fg.plot_error_by_pieces(errors.correlations, figdir / "error_by_pieces")
        figs += fg.plot_odds_ratios(errors.attribution_rows, figdir / "odds_ratios")
    if parity_results:
        figs += fg.plot_parity(parity_results, figdir / "parity")
    fig = errors.odds_figure
    shown = [p for p in figs if p.suffix == ".png" and not (fig and p.name == Path(fig).name)]
    doc.add("Figures", "\n\n".join(f"![{p.stem}](figures/{p.name})" for p in shown), figs)


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
