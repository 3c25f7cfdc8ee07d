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

from tokstudy.analysis.stats.per_language import language_table
from tokstudy.analysis.table import segmentation_table
from tokstudy.report import names
from tokstudy.report.result import Table
from tokstudy.study import across_languages as xl
from tokstudy.study.config import TaskSpec
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import scored_split


@dataclass(frozen=True)
class ScoredTable:
    """The sentences every NER task was scored on, segmented once.

    Attributes:
        table: the :class:`~tokstudy.analysis.table.SegmentationTable` of every task's scored sentences.
        tasks: per task ``{"task", "dataset", "language", "test"}``; ``test`` is the label of its sentences in
            ``table.datasets``.
    """

    table: object
    tasks: list[dict]


def scored_table(tasks: Sequence[TaskSpec], segmenters, sources: Sources) -> ScoredTable | None:
    """One segmentation table of the scored sentences of every NER task (None without NER tasks). Two tasks
    scored on the same split share its sentences (the first one's cut)."""
    datasets, rows, label_of = [], [], {}
    for task in (t for t in tasks if t.task == "ner"):
        ds = scored_split(task, sources)
        key = (ds.name, ds.split, ds.language)
        if key not in label_of:
            label_of[key] = len(datasets)
            datasets.append(ds)
        rows.append({"task": task.label, "dataset": task.dataset, "language": ds.language, "key": key})
    if not datasets:
        return None
    table = segmentation_table(datasets, segmenters, progress=False)
    labels = dict(zip(table.dataset_keys, table.datasets))
    infos = [
        {"task": r["task"], "dataset": r["dataset"], "language": r["language"], "test": labels[r["key"]]} for r in rows
    ]
    return ScoredTable(table, infos)


def _additional(fertility) -> dict:
    """Additional segmentation % of every word from its fertility (pieces per word): ``100 * (f - 1)``, the
    interval mapped the same way (the map is increasing)."""
    return {k: 100.0 * (getattr(fertility, k) - 1.0) for k in ("value", "low", "high")}


def segmentation_by_language(table, tokenizers: list[str], boot: dict) -> dict:
    """``{tokenizer: {dataset label: {"ne": Est, "all": Est, "gap": Est, "unknown": Est, "byte_pieces": Est,
    "script": str}}}`` with
    ``Est = {"value", "low", "high"}``: Table 4 of each dataset (one language) by
    :func:`~tokstudy.analysis.stats.per_language.language_table`, 95 % bootstrap intervals over sentences; ``all``
    is the additional segmentation of every word, from the row's fertility."""
    est = lambda e: {"value": e.value, "low": e.low, "high": e.high}  # noqa: E731
    out: dict = {}
    for r in language_table(table, tokenizers, **boot).rows:
        out.setdefault(r.tokenizer, {})[r.dataset] = {
            "ne": est(r.ne),
            "all": _additional(r.fertility),
            "gap": est(r.gap),
            "unknown": est(r.unknown),
            "byte_pieces": est(r.byte_pieces) if r.byte_pieces is not None else None,
            "script": r.script,
        }
    return out


def language_tables(
    scored: ScoredTable,
    order: list[str],
    scores: dict,
    correlation: list[dict],
    attribution: list[dict],
    boot: dict,
) -> list[Table]:
    """The tables ``languages``, ``cross_language`` and ``vocabulary_gain`` (JSON, and CSV without the seeds'
    values). ``order``: the tokenizers, smallest vocabulary first; ``boot``: ``{"n_resamples", "seed"}``, used
    over sentences for segmentation and over languages for rho."""
    segmentation = segmentation_by_language(scored.table, order, boot)
    rows = xl.language_rows(scored.tasks, segmentation, scores, correlation, attribution, order)
    made = {
        names.LANGUAGES: rows,
        names.CROSS_LANGUAGE: xl.cross_language_correlations(rows, order, **boot),
        names.VOCABULARY_GAIN: xl.vocabulary_gains(rows, order),
    }
    return [
        Table.of(name, rows=[{k: v for k, v in r.items() if k != "f1_values"} for r in content], data=content)
        for name, content in made.items()
    ]
