"""The analysis stage's languages part (``analysis.per_language``): each language's segmentation next to its F1.

Every NER task is one language of one corpus (``masakhaner2-yor-ner``). In two steps around the error analysis:

1. :func:`scored_table`: the sentences each task was scored on (its test split as cut by ``max_eval``), all
   tasks in one segmentation table, each tokenizer run once; the error analysis selects each task's sentences
   from it instead of segmenting them again;
2. :func:`language_tables`: Table 4 per dataset and language
   (:func:`~tokstudy.analysis.stats.per_language.language_table`, what ``tokstudy stats`` gives for many languages:
   NE words, all words through fertility, the script; one bootstrap pass over sentences), joined with each task's
   F1, its word-level correlation and attribution
   (:mod:`tokstudy.analysis.model_errors`, computed by :mod:`tokstudy.study.error_analysis`), and the statistics
   across languages of :mod:`tokstudy.study.across_languages`. It makes the tables ``languages`` (one row per
   tokenizer and language), ``cross_language`` (Spearman across languages with its interval) and
   ``vocabulary_gain`` (languages by F1 gain from the smallest vocabulary to the largest), JSON and CSV,
   which the analysis stage writes (:mod:`tokstudy.report.result`).

The report's section (:mod:`tokstudy.study.language_sections`) reads them back
(:class:`~tokstudy.report.result.StudyTables`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tokstudy.analysis.model_errors.correlation import ErrorCorrelation
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.stats.per_language import language_table
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.registry import DatasetTask
from tokstudy.report import names
from tokstudy.report.attribution_rows import AttributionRow
from tokstudy.report.codec import from_jsonable
from tokstudy.report.result import Table
from tokstudy.report.scores import scores_from_json
from tokstudy.study import across_languages as xl
from tokstudy.study.config import TaskSpec
from tokstudy.study.language_rows import LanguageSegmentation, ScoredTask
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import scored_split


@dataclass(frozen=True)
class ScoredTable:
    """The sentences every NER task was scored on, segmented once.

    Attributes:
        table: the :class:`~tokstudy.analysis.table.SegmentationTable` of every task's scored sentences.
        tasks: the tasks, each with the label of its sentences in ``table.datasets``.
    """

    table: object
    tasks: list[ScoredTask]


def scored_table(tasks: Sequence[TaskSpec], segmenters, sources: Sources) -> ScoredTable | None:
    """One segmentation table of the scored sentences of every NER task (None without NER tasks). Two tasks
    scored on the same split share its sentences (the first one's cut)."""
    datasets, rows, label_of = [], [], {}
    for task in (t for t in tasks if t.task == DatasetTask.NER):
        ds = scored_split(task, sources)
        key = (ds.name, ds.split, ds.language)
        if key not in label_of:
            label_of[key] = len(datasets)
            datasets.append(ds)
        rows.append((task.label, task.dataset, ds.language, key))
    if not datasets:
        return None
    table = segmentation_table(datasets, segmenters, progress=False)
    labels = dict(zip(table.dataset_keys, table.datasets))
    return ScoredTable(
        table, [ScoredTask(task, dataset, language, labels[key]) for task, dataset, language, key in rows]
    )


def _additional(fertility: Estimate) -> Estimate:
    """Additional segmentation % of every word from its fertility (pieces per word): ``100 * (f - 1)``, the
    interval mapped the same way (the map is increasing)."""
    value, low, high = (100.0 * (v - 1.0) for v in (fertility.value, fertility.low, fertility.high))
    return Estimate(value, low, high, fertility.n_words, fertility.n_sentences)


def segmentation_by_language(
    table, tokenizers: list[str], boot: BootstrapSettings
) -> dict[str, dict[str, LanguageSegmentation]]:
    """``{tokenizer: {dataset label: LanguageSegmentation}}``: Table 4 of each dataset (one language) by
    :func:`~tokstudy.analysis.stats.per_language.language_table`, bootstrap intervals over sentences; ``all``
    is the additional segmentation of every word, from the row's fertility."""
    out: dict = {}
    rows = language_table(table, tokenizers, bootstrap=boot)
    for r in rows.rows:
        seg = LanguageSegmentation(r.ne, _additional(r.fertility), r.gap, r.unknown, r.byte_pieces, r.script)
        out.setdefault(r.tokenizer, {})[r.dataset] = seg
    return out


def language_tables(
    scored: ScoredTable,
    order: list[str],
    scores: dict,
    correlation: list[dict],
    attribution: Sequence[AttributionRow],
    boot: BootstrapSettings,
) -> list[Table]:
    """The tables ``languages``, ``cross_language`` and ``vocabulary_gain`` (JSON, and CSV without the seeds'
    values). ``order``: the tokenizers, smallest vocabulary first; ``scores``: ``scores.json``; ``correlation``:
    the JSON rows of that table; ``attribution``: the attribution rows; ``boot``: used over sentences for
    segmentation and over languages for rho."""
    segmentation = segmentation_by_language(scored.table, order, boot)
    correlations = [from_jsonable(ErrorCorrelation, c) for c in correlation]
    rows = xl.language_rows(scored.tasks, segmentation, scores_from_json(scores), correlations, attribution, order)
    made = {
        names.LANGUAGES: rows,
        names.CROSS_LANGUAGE: xl.cross_language_correlations(rows, order, boot),
        names.VOCABULARY_GAIN: xl.vocabulary_gains(rows, order, boot),
    }
    return [
        Table.of(name, rows=[_without_values(r.row()) for r in content], data=[r.row() for r in content])
        for name, content in made.items()
    ]


def _without_values(row: dict) -> dict:
    """A row for the CSV: each seed's F1 is in the JSON only."""
    row.pop("f1_values", None)
    return row
