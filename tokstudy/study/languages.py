"""The analysis stage's languages part (``analysis.per_language``): each language's segmentation next to its F1.

Every NER task is one language of one corpus (``masakhaner2-yor-ner``). In two steps around the error analysis:

1. :func:`scored_table`: the sentences each task was scored on (its test split as cut by ``max_eval``), all
   tasks in one segmentation table, each tokenizer run once; the error analysis selects each task's sentences
   from it instead of segmenting them again;
2. :func:`write_language_tables`: Table 4's machinery grouped per dataset and language
   (:func:`~tokstudy.analysis.stats.breakdowns.breakdowns` by ``dataset``, NE words and all words, one bootstrap
   pass over sentences), joined with each task's F1, its word-level correlation and attribution
   (:mod:`tokstudy.analysis.model_errors`, computed by :mod:`tokstudy.study.error_analysis`), and the statistics
   across languages of :mod:`tokstudy.study.cross_language`. It writes ``tables/languages.*`` (one row per
   tokenizer and language), ``tables/cross_language.*`` (Spearman across languages with its interval) and
   ``tables/vocabulary_gain.*`` (languages by F1 gain from the smallest vocabulary to the largest).

The report's section (:mod:`tokstudy.study.language_report`) reads these files back.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tokstudy.report import tables as rt
from tokstudy.study import cross_language as xl
from tokstudy.study.config import TaskSpec
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import scored_split

#: the tables this part writes, by name (``tables/<name>.json`` and ``.csv``)
TABLES = ("languages", "cross_language", "vocabulary_gain")


@dataclass(frozen=True)
class ScoredTable:
    """The sentences every NER task was scored on, segmented once.

    Attributes:
        table: the :class:`~tokstudy.analysis.table.SegmentationTable` of every task's scored sentences.
        tasks: per task ``{"task", "dataset", "language", "script", "test"}``; ``test`` is the label of its
            sentences in ``table.datasets``.
    """

    table: object
    tasks: list[dict]


def _script(ds) -> str:
    """The main script of a dataset's words (``LATIN``, ``HANGUL``, ...; ``""`` when there are no letters)."""
    from tokstudy.analysis.table.coverage import main_scripts

    chars = Counter(ch for s in ds.sentences for w in s.words for ch in w)
    scripts = main_scripts(chars)
    return scripts[0] if scripts else ""


def scored_table(tasks: Sequence[TaskSpec], segmenters, sources: Sources) -> ScoredTable | None:
    """One segmentation table of the scored sentences of every NER task (None without NER tasks). Two tasks
    scored on the same split share its sentences (the first one's cut)."""
    from tokstudy.analysis.table import segmentation_table

    datasets, rows, label_of = [], [], {}
    for task in (t for t in tasks if t.task == "ner"):
        ds = scored_split(task, sources)
        key = (ds.name, ds.split, ds.language)
        if key not in label_of:
            label_of[key] = len(datasets)
            datasets.append(ds)
        rows.append({"task": task.label, "dataset": task.dataset, "language": ds.language, "key": key, "ds": ds})
    if not datasets:
        return None
    table = segmentation_table(datasets, segmenters, progress=False)
    labels = dict(zip(table.dataset_keys, table.datasets))
    scripts = {key: _script(datasets[i]) for key, i in label_of.items()}
    infos = [
        {
            "task": r["task"],
            "dataset": r["dataset"],
            "language": r["language"],
            "script": scripts[r["key"]],
            "test": labels[r["key"]],
        }
        for r in rows
    ]
    return ScoredTable(table, infos)


def segmentation_by_language(table, tokenizers: list[str], boot: dict) -> dict:
    """``{tokenizer: {dataset label: {"ne": Est, "all": Est}}}``: additional segmentation of each dataset's NE
    words and of all its words, 95 % bootstrap intervals over its sentences (one pass for everything)."""
    from tokstudy.analysis.stats.breakdowns import breakdowns

    grouped = breakdowns(table, tokenizers, groupings=("dataset",), subsets=xl.MEASURES, **boot)["dataset"]
    out: dict = {}
    for g in grouped:
        for label, est in g.groups.items():
            out.setdefault(g.tokenizer, {}).setdefault(label, {})[g.subset] = {
                "value": est.value,
                "low": est.low,
                "high": est.high,
            }
    return out


def write_language_tables(
    tables: Path,
    scored: ScoredTable,
    order: list[str],
    scores: dict,
    correlation: list[dict],
    attribution: list[dict],
    boot: dict,
) -> dict:
    """Write ``tables/languages``, ``cross_language`` and ``vocabulary_gain`` (``.json`` and ``.csv``); returns
    their JSON paths relative to the results folder. ``order``: the tokenizers, smallest vocabulary first;
    ``boot``: ``{"n_resamples", "seed"}``, used over sentences for segmentation and over languages for rho."""
    segmentation = segmentation_by_language(scored.table, order, boot)
    rows = xl.language_rows(scored.tasks, segmentation, scores, correlation, attribution, order)
    written = {
        "languages": rows,
        "cross_language": xl.cross_language_correlations(rows, order, **boot),
        "vocabulary_gain": xl.vocabulary_gains(rows, order),
    }
    for name, content in written.items():
        rt.write_json(content, tables / f"{name}.json")
        rt.write_csv([{k: v for k, v in r.items() if k != "f1_values"} for r in content], tables / f"{name}.csv")
    return {name: f"tables/{name}.json" for name in TABLES}
