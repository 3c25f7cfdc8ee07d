"""The study's analysis stage: Table 4 (+ by type, language and dataset), parity, correlation with errors
and its attribution, Tables 1-2 with the no-pre-training control and what each run cost.

Every dataset of the run is segmented once, into one table; the figures come from two bootstrap
passes, whatever the number of datasets and tokenizers:

1. Table 4 and the summary of the primary (first) dataset:
   :func:`~tokstudy.analysis.stats.table_statistics` on ``table.select(dataset=primary)``,
   exactly what ``tokstudy stats`` prints for that dataset and tokenizers;
2. additional segmentation of NE and non-NE words by entity type, language and dataset, over
   every dataset (:func:`~tokstudy.analysis.stats.segmentation.breakdowns`).

From the same table, without resampling: the shredded frequent words of every tokenizer, per language when the
table has several (:func:`~tokstudy.analysis.stats.shredded.shredded_table`, ``tables/shredded.*``) and, when
``analysis.gold_segmentations`` names files, MorphScore and boundary P/R/F1 of every tokenizer on each, by
frequency band of the words in the analysis datasets (:func:`~tokstudy.analysis.morph.morph_table`,
``tables/morph.*``).

Every table is made by :mod:`tokstudy.report.build` (one schema per table, as ``tokstudy report`` makes
them: ``docs/analysis.md``) and written under ``<root>/tables`` by :mod:`tokstudy.report.result`, figures
by :mod:`tokstudy.report.figures` under ``<root>/figures``; the report
(:func:`tokstudy.study.report_sections.study_report`) reads them back as one
:class:`~tokstudy.report.result.ReportResult`, so what it states is exactly what the tables hold.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from pathlib import Path

from tokstudy.analysis.morph import morph_table
from tokstudy.analysis.stats import table_statistics
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.parity import parity, read_parallel_text
from tokstudy.analysis.stats.segmentation import breakdowns
from tokstudy.analysis.stats.shredded import shredded_table, type_frequencies
from tokstudy.analysis.stats.welch import summarize, welch_p
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.hub import parse_hf_spec
from tokstudy.data.names import expand_dataset_name
from tokstudy.data.names import parse_dataset_name as parse_registry_spec
from tokstudy.data.segmentations import read_segmentations, split_language
from tokstudy.report import build, names
from tokstudy.report.figures import plot_additional_segmentation, plot_errors, plot_parity, plot_score_vs_energy
from tokstudy.report.morph import morph_report
from tokstudy.report.result import STUDY_TABLES, Table, write_table
from tokstudy.report.scores import control_to_json
from tokstudy.report.shredded import shredded_report
from tokstudy.study.config import StudyConfig
from tokstudy.study.control_and_cost import control_comparison, cost_table, energy_points
from tokstudy.study.error_analysis import errors_and_examples, pieces_table
from tokstudy.study.language_analysis import language_tables, scored_table
from tokstudy.study.outcomes import TOKENIZERS, AnalysisWritten
from tokstudy.study.run_cost import CostTable, RunCost
from tokstudy.study.scored_runs import ScoredRun, by_task_and_tokenizer
from tokstudy.study.sources import Sources
from tokstudy.tokenization.loading import load_tokenizer

#: the breakdowns of NE and non-NE words the study writes (``tables/by_<grouping>.*``)
BREAKDOWNS = ("entity_type", "language", "dataset")


def _load_analysis_datasets(config: StudyConfig, sources: Sources) -> tuple[list, list[str], list[str]]:
    """The analysis datasets that are available, their specs, and the specs skipped."""
    datasets, specs, skipped = [], [], []
    for spec in config.analysis.datasets:
        if spec.startswith("hf:"):  # hf:NAME[@CONFIG]:SPLIT
            name, cfg, split = parse_hf_spec(spec)
            datasets.append(sources.dataset(f"hf:{name}" + (f"@{cfg}" if cfg else ""), split))
            specs.append(spec)
            continue
        name, language, split = parse_registry_spec(spec)
        if not sources.has_dataset(name):
            skipped.append(spec)
            continue
        # `masakhaner2:*:test` is the test split of every language present
        for concrete in expand_dataset_name(spec, data_dir=sources.data_dir) if sources.is_real(name) else [spec]:
            name, language, split = parse_registry_spec(concrete)
            datasets.append(sources.dataset(name, split, language=language))
            specs.append(concrete)
    return datasets, specs, skipped


def analyse(
    work: Path,
    inputs: dict,
    *,
    root: Path,
    runs: tuple[ScoredRun, ...],
    config: StudyConfig,
    sources: Sources,
    progress: bool = True,
    pretrain_cost: dict[str, RunCost | None] | None = None,
    task_text: tuple[dict, ...] = (),
) -> AnalysisWritten:
    """The body of the ``analysis`` stage: compute every table and figure of the study and write them; returns
    the tokenizers (those of ``inputs``' ``tokenizers`` stage) and their vocabulary sizes, Table 4's dataset, the
    datasets skipped, and the files written (relative to ``root``).

    ``runs`` holds the pre-trained models' fine-tuning runs and the no-pre-training controls' (scored against
    their models in ``tables/control.json``, left out of the segmentation-error analysis); ``pretrain_cost`` maps
    each tokenizer to its pre-training cost; ``task_text`` the files of the tasks' training words added to the
    corpora (``add_task_text``).
    """
    tokenizer_dirs = inputs[TOKENIZERS].dirs(root)
    sec = config.analysis
    boot = BootstrapSettings(sec.bootstrap, seed=sec.seed)
    tables, figures = root / STUDY_TABLES, root / "figures"
    segmenters = [
        load_tokenizer(d, name=n, count_lone_boundary=sec.count_lone_boundary) for n, d in tokenizer_dirs.items()
    ]
    vocab = {s.name: int(s.vocab_size) for s in segmenters}
    # the same tokenizers without counting a lone boundary piece: r under the protocols that drop it
    dropped = (
        {n: load_tokenizer(d, name=n, count_lone_boundary=False) for n, d in tokenizer_dirs.items()}
        if sec.count_lone_boundary
        else None
    )
    datasets, specs, skipped = _load_analysis_datasets(config, sources)
    table = segmentation_table(datasets, segmenters, progress=progress)  # each dataset segmented once
    stats, by = dataset_statistics(table, list(tokenizer_dirs), boot)
    seg = build.segmentation(stats.table4, stats.summary, by)
    pretrained = [r for r in runs if r.pretrained]
    scores = _scores(pretrained)
    parity_table, drawn = _parity(figures, segmenters, config, sources, boot)
    made = [seg.table4, seg.summary, *seg.by.values(), parity_table, _scores_table(scores)]
    made += [shredded_report(shredded_table(table)), morph_tables(table, segmenters, sec.gold_segmentations)]
    # the error analysis reads runs as records (ScoredRun.row)
    rows = [r.row() for r in pretrained]
    errors, languages = _errors_and_languages(root, table, segmenters, rows, scores, config, sources, boot, dropped)
    made += [errors.result.correlation, errors.result.error_by_pieces, errors.result.attribution]
    made += [errors.result.protocols, errors.table3, *languages]
    control, cost, costs = _control_and_cost(runs, pretrain_cost or {})
    made += [control, cost, *_data_records(runs, task_text, config)]
    made.append(pieces_table(root, rows, bootstrap=boot))  # with finetune.compare_labelling: per-piece files
    written = [p for t in made for p in write_table(t, tables)]
    drawn += _figures(figures, stats.table4, vocab, errors.correlations, errors.result.attribution_rows)
    drawn += _energy_figure(figures, scores, control.data, costs)
    return AnalysisWritten(
        skipped_datasets=tuple(skipped),
        tokenizers=tuple(tokenizer_dirs),
        vocab_sizes=vocab,
        table4_dataset=specs[0],
        tables=tuple(p.relative_to(root).as_posix() for p in written),
        figures=tuple(sorted(Path(p).relative_to(root).as_posix() for p in drawn)),
    )


def _errors_and_languages(
    root: Path,
    table,
    segmenters,
    runs: list[dict],
    scores: dict,
    config: StudyConfig,
    sources,
    boot,
    dropped: dict | None = None,
):
    """The error analysis (:func:`~tokstudy.study.error_analysis.errors_and_examples`) and, with
    ``analysis.per_language``, the languages tables (:mod:`tokstudy.study.language_analysis`). With the languages part,
    every task's scored sentences are segmented once, together, and the error analysis takes each task's from
    that table."""
    # a task's labelling twin (finetune.compare_labelling) is no language of its own: left out of the languages part
    own = [t for t in config.finetune.tasks if not t.variant]
    scored = scored_table(own, segmenters, sources) if config.analysis.per_language else None
    errors = errors_and_examples(
        root, scored.table if scored else table, segmenters, runs, config, sources, boot, dropped=dropped
    )
    if scored is None:
        return errors, []
    order = [s.name for s in sorted(segmenters, key=lambda s: int(s.vocab_size))]
    correlation = errors.result.correlation.data
    return errors, language_tables(scored, order, scores, correlation, errors.result.attribution_rows, boot)


def morph_tables(table, segmenters, gold_segmentations) -> Table | None:
    """MorphScore and boundary P/R/F1 of every tokenizer on each gold file (``FILE[@LANG]``), by frequency band of
    the words in ``table`` (every analysis dataset); None without gold files."""
    if not gold_segmentations:
        return None
    golds = [read_segmentations(path, language=lang) for path, lang in map(split_language, gold_segmentations)]
    counts = dict(zip(table.types, type_frequencies(table).tolist()))
    return morph_report(morph_table(golds, segmenters, corpus_counts=counts))


def _data_records(runs: tuple[ScoredRun, ...], task_text: tuple[dict, ...], config: StudyConfig) -> list[Table]:
    """What the study read of each task's splits (``task_data``: the task, its corpus and language, sentences
    used and available, lines skipped and tags repaired by a lenient reading, from the first run of each task)
    and the tasks' training text added to the corpora (``task_text``, with ``add_task_text``)."""
    spec_of = {t.label: t for t in config.finetune.tasks}
    seen: dict = {}
    for r in runs:
        if r.data and r.task not in seen:
            spec = spec_of[r.task]
            seen[r.task] = {"task": r.task, "dataset": spec.dataset, "language": spec.language, **r.data}
    out = [Table.of(names.TASK_DATA, data=list(seen.values()))] if seen else []
    return out + ([Table.of(names.TASK_TEXT, data=list(task_text))] if task_text else [])


def dataset_statistics(table, tokenizers: list[str], boot: BootstrapSettings):
    """Table 4 and the summary of the table's first dataset, and the NE / non-NE breakdowns of all of it.

    Two bootstrap passes: the first dataset's figures resample its own sentences (so they equal
    ``tokstudy stats`` on that dataset alone), the breakdowns every sentence of the table.
    """
    primary = table.select(dataset=table.datasets[0]) if len(table.datasets) > 1 else table
    stats = table_statistics(primary, tokenizers, groupings=(), intrinsic=False, bootstrap=boot)
    by = breakdowns(table, tokenizers, groupings=BREAKDOWNS, subsets=("ne", "non_ne"), bootstrap=boot)
    return stats, by


def _scores(runs: list[ScoredRun]) -> dict:
    """Tables 1-2: mean ± sd of each model's scores over seeds, Welch's p against the first model."""
    scores: dict = defaultdict(dict)
    for task, by_tok in by_task_and_tokenizer(runs).items():
        names = list(by_tok)
        for tok, rs in by_tok.items():
            summary = summarize([r.score for r in rs])
            scores[task][tok] = {
                "mean": summary.mean,
                "std": summary.std,
                "n": summary.n,
                "metric": rs[0].metric,
                "values": list(summary.values),
            }
        # Welch's t-test of each model against the first (smallest vocabulary), as the paper marks p < 0.05.
        base = names[0]
        for tok in names[1:]:
            a, b = scores[task][base]["values"], scores[task][tok]["values"]
            with warnings.catch_warnings():  # identical scores across seeds: p is NaN and no mark is shown
                warnings.simplefilter("ignore", RuntimeWarning)
                p = welch_p(a, b)
            scores[task][tok]["p_vs_" + base] = p
    return dict(scores)


def _scores_table(scores: dict) -> Table:
    """Tables 1-2 as JSON (every field) and CSV (one row per task and model, without the seeds' values)."""
    rows = [
        {"task": t, "tokenizer": m, **{k: v for k, v in s.items() if k != "values"}}
        for t, by_model in scores.items()
        for m, s in by_model.items()
    ]
    return Table.of(names.SCORES, rows=rows, data=scores)


def _control_and_cost(
    runs: tuple[ScoredRun, ...], pretrain_cost: dict[str, RunCost | None]
) -> tuple[Table, Table, CostTable]:
    """Pre-trained vs no-pre-training control, and what every run cost: its table (``cost.json`` and ``cost.csv``,
    written by :class:`~tokstudy.study.run_cost.CostTable`'s codec) and the costs themselves, for the figure."""
    costs = cost_table(runs, pretrain_cost)
    control = Table.of(names.CONTROL, data=control_to_json(control_comparison(runs)))
    return control, Table.of(names.COST, rows=costs.rows(), data=costs.to_json()), costs


def _energy_figure(figures: Path, scores: dict, control: dict, costs: CostTable) -> list[Path]:
    """Score against energy per model (only where energy was measured); the scores as their JSON holds them."""
    points = energy_points(_scores_table(scores).data, control, costs)
    return plot_score_vs_energy(points, figures / "score_vs_energy") if points else []


def _parity(
    figures: Path, segmenters, config: StudyConfig, sources: Sources, boot: BootstrapSettings
) -> tuple[Table | None, list[Path]]:
    """Fertility and parity across languages on the parallel corpus, when it is available, and its figure."""
    corpus = config.analysis.parity_corpus
    directory = sources.corpus_path(corpus) if corpus else None
    if directory is None:
        return None, []
    results = parity(read_parallel_text(directory), segmenters, bootstrap=boot)
    return build.parity(results), plot_parity(results, figures / "parity")


def _figures(figures: Path, table4_rows: list, vocab: dict, correlations: list, attribution: list = ()) -> list[Path]:
    """Additional segmentation by vocabulary × NE/non-NE, error rate by pieces, odds ratios
    (tokstudy.report.figures)."""
    written = plot_additional_segmentation(table4_rows, figures / "table4", vocab_sizes=vocab)
    return written + plot_errors(correlations, attribution, figures)
