"""The study's report: the study's own sections, written through :mod:`tokstudy.report`.

Why the sections live here and not in :mod:`tokstudy.report`: they depend on the study (its
configuration and smoke-test flag, the paper's reference figures and the findings of
:mod:`tokstudy.study.findings`, Tables 1-2 of :mod:`tokstudy.study.control_and_cost`), and the report
package sits below the study, so it must not import it. The study reads what its analysis stage
wrote under ``tables/`` back as one :class:`~tokstudy.report.result.ReportResult`
(:func:`tokstudy.report.result.read_study_result`), makes its sections from it (the ones it shares with
``tokstudy report`` from :mod:`tokstudy.report.assemble`), and :func:`tokstudy.report.assemble.write_document`
writes ``report.md`` and ``report.html`` as it writes every report.

>>> # study_report(root, analysis_written, config, sources)  # -> {"markdown": .../report.md, "html": ...}
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from tokstudy.analysis.model_errors.correlation import ErrorCorrelation
from tokstudy.analysis.stats.estimates import Estimate
from tokstudy.datalocation import data_root, shown_path
from tokstudy.report import names
from tokstudy.report.assemble import (
    SHREDDED_ABSENT,
    Section,
    attribution_section,
    morph_section,
    pieces_section,
    shredded_section,
    write_document,
)
from tokstudy.report.numbers import format_p
from tokstudy.report.result import Breakdown, ReportResult, StudyTables, read_study_result, study_path
from tokstudy.study.checkpoints import models_note
from tokstudy.study.config import FinetuneSection, StudyConfig, load_study_config
from tokstudy.study.control_and_cost import tables_1_2_markdown
from tokstudy.study.findings import PAPER_PEARSON, PAPER_TABLE4, all_findings, by_vocab
from tokstudy.study.language_rows import CrossLanguageRow, LanguageRow, VocabularyGain
from tokstudy.study.language_sections import cuts_section, language_findings, languages_section, training_text_section
from tokstudy.study.outcomes import AnalysisWritten
from tokstudy.study.sources import Sources
from tokstudy.study.task_rows import TaskData, TaskText

#: Version of the report's wording and verdict rules: part of the report stage's key, so a finished study
#: writes its report again (that stage only) after they change. Raise it whenever what the report says, or
#: how it decides a verdict, changes; what each version changed is in the git log.
REPORT_VERSION = 7

SMOKE_TEST_NOTE = (
    "This configuration checks that every stage of the study runs, end to end, in minutes. Its models are "
    "tiny and trained for a few hundred steps on a few thousand sentences, so their scores, the correlation "
    "of segmentation with their errors and the pre-training control say nothing about tokenization: read "
    "them as a smoke test. The segmentation tables (Table 4, by language, parity) do not depend on the "
    "models. For models worth analysing run `tokstudy study cpu` (or `gpu`)."
)


def _fmt(e: Estimate) -> str:
    if math.isnan(e.low):
        return f"{e.value:.2f}"
    return f"{e.value:.2f} [{e.low:.2f}, {e.high:.2f}]"


def study_report(
    root: Path,
    analysis: AnalysisWritten,
    config: StudyConfig,
    sources: Sources,
    result: ReportResult | None = None,
) -> dict[str, Path]:
    """Write ``report.md`` / ``report.html`` into ``root`` from the tables the analysis stage wrote (``result``:
    those tables, read back already; ``analysis``: the analysis stage's outcome)."""
    sections = study_sections(result or read_study_result(root), analysis, config, sources)
    return write_document(root, f"tokstudy study: {config.name}", sections)


def rerender_study_report(root: str | Path, *, data_dir: str | Path | None = None) -> dict[str, Path]:
    """Write ``report.md`` / ``report.html`` of a finished study folder again from its ``tables/`` and
    ``config.json``, without its models (``tokstudy study --report-only``): the report stage only.

    The analysis stage's record (``.stages/analysis.json``) and the report stage's notes are used where the
    folder keeps them; a folder that holds only the report, tables and configuration (``examples/cpu_report``)
    has its record rebuilt: vocabulary sizes from the configuration (in the order the tokenizers were
    trained), Table 4's dataset as the first analysis dataset.
    """
    root = Path(root)
    config = load_study_config(root / "config.json")
    result = read_study_result(root)
    stages = root / ".stages"
    record = (_stage_record(stages / "analysis.json") or {}).get("outputs")
    if record is not None:
        analysis = AnalysisWritten.from_json(record)
    else:
        tokenizers = [r.tokenizer for r in result.segmentation.table4_rows()]
        sizes = list(config.tokenizers.vocab_sizes)
        if len(tokenizers) != len(sizes):
            raise ValueError(
                f"{root}: {len(tokenizers)} tokenizers in tables/{names.TABLE4}.json, {len(sizes)} vocabulary sizes"
            )
        analysis = AnalysisWritten(
            (), tuple(tokenizers), dict(zip(tokenizers, sizes)), config.analysis.datasets[0], (), ()
        )
    notes = ((_stage_record(stages / "report.json") or {}).get("params") or {}).get("notes") or []
    sources = Sources(data_dir=data_root(data_dir or config.data_dir), notes=list(notes))
    return study_report(root, analysis, config, sources, result)


def _stage_record(path: Path) -> dict | None:
    """A stage's record (``.stages/<stage>.json``), or None where the folder does not keep it."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def study_sections(
    result: ReportResult, analysis: AnalysisWritten, config: StudyConfig, sources: Sources
) -> list[Section]:
    """Every section of the study's report, in reading order."""
    study = result.study or StudyTables()
    table4 = result.segmentation.table4_rows()
    vocab = analysis.vocab_sizes
    errors = result.errors
    correlation = errors.correlations() if errors else []
    scores, control = study.scores_by_task(), study.control_by_task()
    languages = [LanguageRow.from_json(r) for r in study.value(names.LANGUAGES, [])]
    cross = [CrossLanguageRow.from_json(r) for r in study.value(names.CROSS_LANGUAGE, [])]
    gains = [VocabularyGain.from_json(r) for r in study.value(names.VOCABULARY_GAIN, [])]
    order = [r.tokenizer for r in by_vocab(table4, vocab)]

    sections = _opening_sections(analysis, config, sources, study)
    # a language's score against vocabulary size is one case of one finding over languages, not a finding per task
    per_task = {t: s for t, s in scores.items() if t not in {r.task for r in languages}}
    attribution = errors.attribution_rows if errors else []
    found = all_findings(table4, vocab, correlation, per_task, attribution or None, control)
    found += language_findings(cross, gains)
    sections.append(Section("Findings", "\n".join(f.markdown() for f in found)))
    sections.append(_table4_section(result, vocab, analysis, config))
    if correlation:
        sections.append(_correlation_section(correlation))
    if errors and errors.protocols is not None:
        sections.append(Section("Which protocol gives the paper's r = 0.44?", errors.protocols.markdown))
    if attribution:
        sections.append(attribution_section(errors, figure="figures/odds_ratios.png"))
    sections += [
        s
        for s in (
            shredded_section(result.shredded, absent=SHREDDED_ABSENT),
            morph_section(result.morph),
            pieces_section(result.pieces),
        )
        if s is not None
    ]
    if languages:
        link = study_path(study.vocabulary_gain, "csv")
        sections.append(languages_section(languages, cross, gains, order, gain_csv=link))
    if scores:
        sections.append(_scores_section(result, study, order, config))
    return sections + _closing_sections(result, config)


def _opening_sections(
    analysis: AnalysisWritten, config: StudyConfig, sources: Sources, study: StudyTables
) -> list[Section]:
    """The data, the smoke-test note, and with ``per_language`` the training text and what was cut."""
    task_data = [TaskData.from_json(r) for r in study.value(names.TASK_DATA, [])]
    out = [_data_section(analysis, sources, task_data)]
    if config.checkpoints:
        out.append(Section("Models", models_note(config.checkpoints, config.finetune.seeds)))
    if config.smoke_test:
        out.append(Section("These models are a smoke test", SMOKE_TEST_NOTE))
    if config.analysis.per_language:
        out.append(training_text_section(config, [TaskText.from_json(r) for r in study.value(names.TASK_TEXT, [])]))
        out.append(cuts_section(config, task_data))
    return out


def _scores_section(result: ReportResult, study: StudyTables, order: list[str], config: StudyConfig) -> Section:
    """Tables 1-2: how the tagging scores were decoded, the scores, the control, the cost and its figure (the
    tables of :func:`~tokstudy.study.control_and_cost.tables_1_2_markdown`, from the JSON as written)."""
    figure = "figures/score_vs_energy.png" if "figures/score_vs_energy.png" in result.figures else None
    scores, control = study.value(names.SCORES, {}), study.value(names.CONTROL, {})
    body = tables_1_2_markdown(scores, control, study.value(names.COST), order, config.finetune.seeds, figure=figure)
    body = decoding_note(config.finetune) + "\n\n" + body
    return Section("Tables 1-2: fine-tuning scores and what each model cost", body)


def _closing_sections(result: ReportResult, config: StudyConfig) -> list[Section]:
    """Additional segmentation by language, parity, Table 3 and how to reproduce the run."""
    out = []
    by_language = result.segmentation.by.get(Breakdown.LANGUAGE)
    if by_language is not None and by_language.markdown is not None:
        out.append(
            Section(
                "Additional segmentation by language (%)",
                "Every labelled dataset of the run, NE and non-NE words, 95 % bootstrap CIs over sentences "
                f"([csv]({study_path(by_language, 'csv')})).\n\n" + by_language.markdown,
            )
        )
    if result.parity is not None and result.parity.markdown is not None:
        body = result.parity.markdown + "\n\n![parity](figures/parity.png)"
        out.append(Section("Fertility and parity across languages", body))
    if result.examples is not None:
        out.append(Section("Table 3: segmentation examples", result.examples.markdown))
    out.append(Section("Reproduce", f"```\ntokstudy study {config.name}\n```\nConfiguration: `config.json`."))
    return out


def decoding_note(section: FinetuneSection) -> str:
    """How the tagging scores were obtained: the labels' decoding changes F1 by several points, so a reader must
    know which one the tables show.

    >>> decoding_note(FinetuneSection(decode="viterbi", decode_prior_scale=0.5))[:58]
    'Tagging tasks (F1) are decoded with Viterbi: each sentence'
    """
    if section.decode == "viterbi":
        prior = (
            f", with a prior scale of {section.decode_prior_scale:g} (that share of the label prior divided out)"
            if section.decode_prior_scale
            else ""
        )
        return (
            "Tagging tasks (F1) are decoded with Viterbi: each sentence's best label sequence under the model's "
            f"probabilities and the training split's label bigrams{prior}; the models are plain token classifiers "
            "(`finetune.decode`, docs/finetune.md)."
        )
    return "Tagging tasks (F1) are labelled word by word: each word takes the best label at its first piece."


def _data_section(analysis: AnalysisWritten, sources: Sources, task_data: list[TaskData] = ()) -> Section:
    note = "\n\n".join(sources.notes) if sources.notes else f"All inputs are the real corpora at {_location(sources)}."
    if analysis.skipped_datasets:  # shown as the record lists them
        note += f"\n\nSkipped (not available): {list(analysis.skipped_datasets)}."
    read = lenient_note(task_data)
    return Section("Data", note + (f"\n\n{read}" if read else ""))


def lenient_note(task_data: list[TaskData]) -> str:
    """What a lenient reading changed in the tasks' splits (``tables/task_data.json``): the malformed lines it
    skipped, named per task and split, and how many tags it repaired.

    >>> from tokstudy.study.tasks import SplitRecord
    >>> lenient_note([TaskData("masakhaner2-xho-ner", train=SplitRecord("train", 9, 9, skipped_lines=2))])
    "Read leniently: masakhaner2-xho-ner train: 2 malformed lines skipped (a field count other than the file's)."
    """
    skipped, repaired, where = [], 0, 0
    for record in task_data:
        for r in record.splits():
            if r.skipped_lines:
                skipped.append(f"{record.task} {r.split}: {r.skipped_lines} malformed lines skipped")
            if r.repaired:
                repaired, where = repaired + r.repaired, where + 1
    parts = []
    if skipped:
        parts.append("; ".join(skipped) + " (a field count other than the file's)")
    if repaired:
        parts.append(f"{repaired} I- tags that continue no entity read as B- in {where} task splits")
    return f"Read leniently: {'; '.join(parts)}." if parts else ""


def _location(sources: Sources) -> str:
    """The data location as a shared report names it: relative to where the study ran, never absolute."""
    return f"the data location `{shown_path(sources.data_dir)}` (`--data-dir`, else `$TOKSTUDY_DATA`)"


def _table4_section(result: ReportResult, vocab: dict, analysis: AnalysisWritten, config: StudyConfig) -> Section:
    """Table 4 by vocabulary size, the paper's figures beside ours, the figure and the breakdowns."""
    table4 = result.segmentation.table4_rows()
    rows = "\n".join(
        f"| {r.tokenizer} | {vocab[r.tokenizer]} | {_fmt(r.ne)} | {_fmt(r.non_ne)} | {_fmt(r.all)} |"
        for r in by_vocab(table4, vocab)
    )
    paper = "\n".join(f"| paper {k} | | {v.ne:.2f} | {v.non_ne:.2f} | |" for k, v in PAPER_TABLE4.items())
    policies = "; ".join(dict.fromkeys(r.boundary_policy for r in table4))
    links = ", ".join(f"[{b}]({study_path(t, 'csv')})" for b, t in result.segmentation.by.items())
    return Section(
        "Table 4: additional segmentation (%)",
        f"Dataset: `{analysis.table4_dataset}`. Additional segmentation = pieces / words − 1, with 95 % "
        f"bootstrap CIs over sentences ({config.analysis.bootstrap} resamples). Counting: {policies}.\n\n"
        "| tokenizer | vocab | NE | non-NE | all |\n|---|---:|---|---|---|\n"
        + rows
        + "\n"
        + paper
        + "\n\n![Table 4](figures/table4.png)\n\nNE and non-NE words by entity type, language and dataset: "
        + links
        + ".",
    )


def _correlation_section(correlation: list[ErrorCorrelation]) -> Section:
    """Pearson r of a word's pieces with its label errors, per model and task (``correlation.json``)."""
    rows = "\n".join(
        f"| {c.tokenizer} / {c.model} | {a.r:.3f} | [{a.low:.3f}, {a.high:.3f}] | "
        f"{format_p(a.p_value)} | {a.spearman:.3f} | {a.n} |"
        for c in correlation
        for a in (c.all,)
    )
    return Section(
        "Segmentation vs label errors",
        "Pearson r between a word's number of pieces and whether the fine-tuned model mislabelled it "
        f"(paper: {PAPER_PEARSON}).\n\n| model / task | Pearson r | 95 % CI | p | Spearman ρ | words |\n"
        "|---|---:|---|---:|---:|---:|\n" + rows + "\n\n![errors](figures/error_by_pieces.png)",
    )
