"""The study's fine-tuned models against segmentation: correlation of a word's pieces with its label
errors, the attribution beyond frequency, entity status and length, and Table 3's examples.

For every NER task with predictions, the task's test split (its dev split where the corpus has no test
split: :func:`~tokstudy.study.tasks.scored_split`) is taken from the table given when it holds exactly those
sentences (else segmented once on its own); each model's first
seed's predictions are aligned to it, published where the app looks for them
(``predictions/<model>/<dataset>[_<language>]_<split>.tsv``) and scored. The tables are made by
:func:`tokstudy.report.build.errors` (``correlation``, ``error_by_pieces``, ``attribution``, ``r_protocols``)
and Table 3 as ``table3`` (Markdown, one part per task); the analysis stage writes them.

With ``finetune.compare_labelling``, the "Pieces that disagree" table (:func:`pieces_table`): for every NER task
and tokenizer, the first seed's per-piece predictions (written beside its word predictions,
:func:`~tokstudy.analysis.model_errors.piece_predictions.piece_predictions_path`) read by
:func:`~tokstudy.analysis.model_errors.piece_agreement.piece_agreement`; first-piece and all-pieces models
(the task and its ``-allpieces`` / ``-firstpiece`` twin) side by side. The analysis stage writes the table into
``tables/`` (:func:`~tokstudy.report.result.write_table`), the report reads it back
(:func:`~tokstudy.report.result.read_table`) and shows it (:func:`~tokstudy.report.assemble.pieces_section`, as
``tokstudy report --piece-predictions`` does), so a re-rendered report states exactly what the table holds.
"""

from __future__ import annotations

import dataclasses
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.attribution import attribute_errors, word_counts
from tokstudy.analysis.model_errors.correlation import correlate_errors
from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
from tokstudy.analysis.model_errors.piece_predictions import piece_predictions_path, read_piece_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.analysis.model_errors.protocols import correlation_protocols
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table, tokenizer_columns
from tokstudy.report import build, names
from tokstudy.report.pieces import pieces_report
from tokstudy.report.result import ErrorResult, Table
from tokstudy.report.table3 import examples, examples_markdown, select_sentences
from tokstudy.study.config import StudyConfig
from tokstudy.study.scored_runs import ScoredRun, by_task_and_tokenizer
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import scored_split, training_split


@dataclass(frozen=True)
class ErrorAnalysis:
    """What :func:`errors_and_examples` computed.

    Attributes:
        result: the tables (correlation, error rate by pieces, attribution, r under every protocol of the
            paper's correlation), as :func:`tokstudy.report.build.errors` makes them.
        table3: Table 3, one part per task (None without predictions).
        correlations: one :class:`~tokstudy.analysis.model_errors.correlation.ErrorCorrelation` per (task, model),
            for the figures.
    """

    result: ErrorResult
    table3: Table | None = None
    correlations: list = field(default_factory=list)


def scored_runs(runs: Sequence[ScoredRun | dict]) -> list[ScoredRun]:
    """The runs, typed: each :class:`~tokstudy.study.scored_runs.ScoredRun`, or its record
    (:meth:`~tokstudy.study.scored_runs.ScoredRun.row`, as the analysis stage hands them over) read back as one."""
    return [r if isinstance(r, ScoredRun) else ScoredRun(**r) for r in runs]


def task_table_of(table, test, segmenters):
    """The segmentation table of ``test``: selected from ``table`` when it holds exactly those sentences."""
    key = (test.name, test.split, test.language)
    if key in table.dataset_keys:
        code = table.dataset_keys.index(key)
        sentences = [s for s in test.sentences if s.words]
        n_sentences, n_words = int((table.sentence_dataset == code).sum()), int((table.dataset_code == code).sum())
        # the same file and split: the same sentences when there are as many of them and of their words
        if n_sentences == len(sentences) and n_words == sum(len(s.words) for s in sentences):
            return table.select(dataset=table.datasets[code])
    return segmentation_table([test], segmenters, progress=False)


def published_stem(task, test) -> str:
    """The file name (without ``.tsv``) a task's predictions are published under, for the app:
    ``<dataset>[_<language>]_<split>`` (``conll2003_test``, ``masakhaner2_yor_test``, ``multiconer2022_de_dev``)."""
    return "_".join(p for p in (task.dataset, task.language, test.split) if p)


def errors_and_examples(
    root: Path,
    table,
    segmenters,
    runs: Sequence[ScoredRun | dict],
    config: StudyConfig,
    sources: Sources,
    boot: BootstrapSettings,
    dropped: dict | None = None,
) -> ErrorAnalysis:
    """Correlation and attribution of errors, and Table 3, for every NER task with predictions; with ``dropped``
    (each tokenizer loaded without counting a lone boundary piece, by name) also r under every protocol
    (:func:`~tokstudy.analysis.model_errors.protocols.correlation_protocols`). ``runs``: the pre-trained models'
    runs (:func:`scored_runs`)."""
    by_seg = {s.name: s for s in segmenters}
    results, attributions, example_md, protocols = [], [], [], []
    for task, by_tok in by_task_and_tokenizer(scored_runs(runs)).items():
        if not next(iter(by_tok.values()))[0].predictions:
            continue
        spec = next(t for t in config.finetune.tasks if t.label == task)
        test = scored_split(spec, sources)
        task_table = task_table_of(table, test, [by_seg[t] for t in by_tok])
        # word frequencies of what the model was fine-tuned on (the same cut of the training split)
        train = training_split(spec, sources)
        train_counts = word_counts(train)
        # tags the model never saw: the fine-tuner wrote them as gold O (unseen_labels="map_o")
        seen_tags = {tag for sentence in train.sentences for tag in (sentence.tags or ())}
        unseen = [tag for tag in task_table.tags if tag not in seen_tags]
        train_name = f"{spec.language}:train" if spec.language else "train"
        aligned_all = []
        for tok, rs in by_tok.items():
            # the first seed's predictions, as the paper reports one model per vocabulary
            source = root / rs[0].predictions
            # a task's labelling twin (finetune.compare_labelling) is published as a model of its own
            model_folder = tok + (f"-{spec.variant}" if spec.variant else "")
            published = root / "predictions" / model_folder / f"{published_stem(spec, test)}.tsv"
            published.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, published)
            if piece_predictions_path(source).is_file():  # the explorer colours pieces by their own labels
                shutil.copyfile(piece_predictions_path(source), piece_predictions_path(published))
            aligned = align_predictions(task_table, read_predictions(source), unseen_as_o=unseen)
            aligned_all.append(dataclasses.replace(aligned, model=f"model {tok}"))
            of_task = dataclasses.replace(aligned, model=task)
            results.append(correlate_errors(task_table, of_task, tokenizer=tok, bootstrap=boot))
            if dropped is not None:
                protocols.append(_protocols(task_table, of_task, tok, dropped[tok], boot))
            attributions.append(
                attribute_errors(
                    task_table, of_task, tokenizer=tok, train=train_counts, train_label=f"{spec.dataset}:{train_name}"
                )
            )
        chosen = select_sentences(task_table, config.analysis.n_examples)
        example_md.append(f"### {task}\n\n" + examples_markdown(examples(task_table, chosen, aligned_all)))

    result = build.errors(results, attributions, protocols)
    table3 = Table(names.TABLE3, "\n\n".join(example_md)) if example_md else None
    return ErrorAnalysis(result, table3, results)


def _protocols(task_table, aligned, tok: str, dropped_segmenter, boot: BootstrapSettings):
    """r of one model's errors under every protocol, the lone boundary piece counted and dropped."""
    dropped = tokenizer_columns(task_table, dropped_segmenter)
    return correlation_protocols(task_table, aligned, tok, dropped=dropped, bootstrap=boot)


def pieces_table(
    root: Path, runs: Sequence[ScoredRun | dict], *, bootstrap: BootstrapSettings = BootstrapSettings()
) -> Table | None:
    """The section's table from the runs (:func:`scored_runs`; ``predictions`` relative to ``root``): one
    pre-trained model per (task, tokenizer), its first seed, named ``<tokenizer> <task>``; None when no run wrote
    per-piece predictions."""
    first: dict[tuple[str, str], ScoredRun] = {}
    for run in scored_runs(runs):
        key = (run.task, run.tokenizer)
        if run.predictions and run.pretrained and (key not in first or run.seed < first[key].seed):
            first[key] = run
    results = []
    for (task, tok), run in first.items():
        path = piece_predictions_path(root / run.predictions)
        if path.is_file():
            res = piece_agreement(read_piece_predictions(path), bootstrap=bootstrap)
            results.append(dataclasses.replace(res, model=f"{tok} {task}"))
    return pieces_report(results) if results else None
