"""The study's report: the study's own sections, written through :mod:`tokstudy.report`.

Why the sections live here and not in :mod:`tokstudy.report`: they depend on the study (its
configuration and smoke-test flag, the paper's reference figures and the findings of
:mod:`tokstudy.study.findings`, Tables 1-2 of :mod:`tokstudy.study.compare`), and the report
package sits below the study, so it must not import it. The study therefore adds only sections
of Markdown, each built from the files its analysis stage wrote under ``tables/`` (in the one
schema of :mod:`tokstudy.report.files`), and :func:`tokstudy.report.document.write_document`
writes ``report.md`` and ``report.html`` as it writes every report.

>>> # study_report(root, analysis_record, config, sources)  # -> {"markdown": .../report.md, "html": ...}
"""

from __future__ import annotations

import json
from pathlib import Path

from tokstudy.report.document import Section, write_document
from tokstudy.report.numbers import format_p
from tokstudy.study.config import FinetuneSection, StudyConfig
from tokstudy.study.findings import PAPER_PEARSON, PAPER_TABLE4, all_findings, by_vocab
from tokstudy.study.language_report import cuts_section, language_findings, languages_section, training_text_section
from tokstudy.study.sources import Sources

#: Version of the report's wording and verdict rules: part of the report stage's key, so a finished study
#: writes its report again (that stage only) after they change. 2 = verdicts yes / no / mixed / undecided
#: with their counts, no absolute path. 3 = what a lenient reading skipped, and the languages sections.
#: 5 = attribution cases decided by every test the section shows; "no (opposite direction)" (issue 33).
REPORT_VERSION = 5

SMOKE_TEST_NOTE = (
    "This configuration checks that every stage of the study runs, end to end, in minutes. Its models are "
    "tiny and trained for a few hundred steps on a few thousand sentences, so their scores, the correlation "
    "of segmentation with their errors and the pre-training control say nothing about tokenization: read "
    "them as a smoke test. The segmentation tables (Table 4, by language, parity) do not depend on the "
    "models. For models worth analysing run `tokstudy study cpu` (or `gpu`)."
)


def _read(root: Path, relative: str):
    path = root / relative
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _text(root: Path, relative: str) -> str | None:
    path = root / relative
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _fmt(e: dict) -> str:
    if e.get("low") is None:
        return f"{e['value']:.2f}"
    return f"{e['value']:.2f} [{e['low']:.2f}, {e['high']:.2f}]"


def study_report(root: Path, analysis: dict, config: StudyConfig, sources: Sources) -> dict[str, Path]:
    """Write ``report.md`` / ``report.html`` into ``root`` from the tables the analysis stage wrote."""
    return write_document(root, f"tokstudy study: {config.name}", study_sections(root, analysis, config, sources))


def rerender_study_report(root: str | Path, *, data_dir: str | Path | None = None) -> dict[str, Path]:
    """Write ``report.md`` / ``report.html`` of a finished study folder again from its ``tables/`` and
    ``config.json``, without its models (``tokstudy study --report-only``): the report stage only.

    The analysis stage's record (``.stages/analysis.json``) and the report stage's notes are used where the
    folder keeps them; a folder that holds only the report, tables and configuration (``examples/cpu_report``)
    has its record rebuilt: vocabulary sizes from the configuration (in the order the tokenizers were
    trained), Table 4's dataset as the first analysis dataset, the breakdowns from the files present.
    """
    from tokstudy.datalocation import data_root
    from tokstudy.study.analysis_stage import BREAKDOWNS
    from tokstudy.study.config import load_study_config

    root = Path(root)
    config = load_study_config(root / "config.json")
    stages = root / ".stages"
    analysis = (_read(stages, "analysis.json") or {}).get("outputs")
    if analysis is None:
        table4 = _read(root, "tables/table4.json")
        if table4 is None:
            raise FileNotFoundError(f"{root / 'tables/table4.json'}: not a finished study folder (no Table 4)")
        names, sizes = [r["tokenizer"] for r in table4], list(config.tokenizers.vocab_sizes)
        if len(names) != len(sizes):
            raise ValueError(f"{root}: {len(names)} tokenizers in tables/table4.json, {len(sizes)} vocabulary sizes")
        analysis = {
            "vocab_sizes": dict(zip(names, sizes)),
            "table4_dataset": config.analysis.datasets[0],
            "by": {g: f"tables/by_{g}.csv" for g in BREAKDOWNS if (root / f"tables/by_{g}.csv").is_file()},
            "skipped_datasets": [],
        }
    notes = ((_read(stages, "report.json") or {}).get("params") or {}).get("notes") or []
    sources = Sources(data_dir=data_root(data_dir or config.data_dir), notes=list(notes))
    return study_report(root, analysis, config, sources)


def study_sections(root: Path, analysis: dict, config: StudyConfig, sources: Sources) -> list[Section]:
    """Every section of the study's report, in reading order."""
    table4 = _read(root, "tables/table4.json")
    vocab = analysis["vocab_sizes"]
    correlation = _read(root, "tables/correlation.json") or []
    scores = _read(root, "tables/scores.json") or {}
    attribution = _read(root, "tables/attribution.json")
    control = _read(root, "tables/control.json") or {}
    task_data = _read(root, "tables/task_data.json") or []
    languages = _read(root, "tables/languages.json") or []
    cross = _read(root, "tables/cross_language.json") or []
    gains = _read(root, "tables/vocabulary_gain.json") or []
    order = [r["tokenizer"] for r in by_vocab(table4, vocab)]

    sections = [_data_section(analysis, sources, task_data)]
    if config.smoke_test:
        sections.append(Section("These models are a smoke test", SMOKE_TEST_NOTE))
    if config.analysis.per_language:
        sections.append(training_text_section(config, _read(root, "tables/task_text.json")))
        sections.append(cuts_section(config, task_data))
    # a language's score against vocabulary size is one case of one finding over languages, not a finding per task
    per_task = {t: s for t, s in scores.items() if t not in {r["task"] for r in languages}}
    found = all_findings(
        table4, vocab, correlation, per_task, attribution["attribution"] if attribution else None, control
    )
    found += language_findings(cross, gains)
    sections.append(Section("Findings", "\n".join(f.markdown() for f in found)))
    sections.append(_table4_section(table4, vocab, analysis, config))
    if correlation:
        sections.append(_correlation_section(correlation))
    protocols = _text(root, "tables/r_protocols.md")
    if protocols:
        sections.append(Section("Which protocol gives the paper's r = 0.44?", protocols.strip()))
    if attribution:
        from tokstudy.report.attribution import attribution_section

        sections.append(
            Section(
                "Does segmentation predict errors beyond frequency, entity status and length?",
                attribution_section(
                    attribution["attribution"], attribution["by_frequency"], figure="figures/odds_ratios.png"
                ),
            )
        )
    if languages:
        sections.append(languages_section(languages, cross, gains, order))
    if scores:
        from tokstudy.study.compare import tables_1_2_markdown

        figure = "figures/score_vs_energy.png" if (root / "figures/score_vs_energy.png").is_file() else None
        body = tables_1_2_markdown(
            scores, control, _read(root, "tables/cost.json"), order, config.finetune.seeds, figure=figure
        )
        body = decoding_note(config.finetune) + "\n\n" + body
        sections.append(Section("Tables 1-2: fine-tuning scores and what each model cost", body))
    by_language = _text(root, "tables/by_language.md")
    if by_language:
        sections.append(
            Section(
                "Additional segmentation by language (%)",
                "Every labelled dataset of the run, NE and non-NE words, 95 % bootstrap CIs over sentences "
                "([csv](tables/by_language.csv)).\n\n" + by_language,
            )
        )
    parity = _text(root, "tables/parity.md")
    if parity:
        sections.append(Section("Fertility and parity across languages", parity + "\n\n![parity](figures/parity.png)"))
    table3 = _text(root, "tables/table3.md")
    if table3:
        sections.append(Section("Table 3: segmentation examples", table3))
    sections.append(Section("Reproduce", f"```\ntokstudy study {config.name}\n```\nConfiguration: `config.json`."))
    return sections


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


def _data_section(analysis: dict, sources: Sources, task_data: list[dict] = ()) -> Section:
    note = "\n\n".join(sources.notes) if sources.notes else f"All inputs are the real corpora at {_location(sources)}."
    if analysis.get("skipped_datasets"):
        note += f"\n\nSkipped (not available): {analysis['skipped_datasets']}."
    read = lenient_note(task_data)
    return Section("Data", note + (f"\n\n{read}" if read else ""))


def lenient_note(task_data: list[dict]) -> str:
    """What a lenient reading changed in the tasks' splits (``tables/task_data.json``): the malformed lines it
    skipped, named per task and split, and how many tags it repaired.

    >>> lenient_note([{"task": "masakhaner2-xho-ner", "train": {"split": "train", "skipped_lines": 2, "repaired": 0}}])
    'Read leniently: masakhaner2-xho-ner train: 2 malformed lines skipped (single field, no tag).'
    """
    skipped, repaired, where = [], 0, 0
    for record in task_data:
        for role in ("train", "dev", "test"):
            r = record.get(role) or {}
            if r.get("skipped_lines"):
                skipped.append(f"{record['task']} {r['split']}: {r['skipped_lines']} malformed lines skipped")
            if r.get("repaired"):
                repaired, where = repaired + r["repaired"], where + 1
    parts = []
    if skipped:
        parts.append("; ".join(skipped) + " (single field, no tag)")
    if repaired:
        parts.append(f"{repaired} I- tags that continue no entity read as B- in {where} task splits")
    return f"Read leniently: {'; '.join(parts)}." if parts else ""


def _location(sources: Sources) -> str:
    """The data location as a shared report names it: relative to where the study ran, never absolute."""
    from tokstudy.datalocation import shown_path

    return f"the data location `{shown_path(sources.data_dir)}` (`--data-dir`, else `$TOKSTUDY_DATA`)"


def _table4_section(table4: list[dict], vocab: dict, analysis: dict, config: StudyConfig) -> Section:
    """Table 4 by vocabulary size, the paper's figures beside ours, the figure and the breakdowns."""
    rows = "\n".join(
        f"| {r['tokenizer']} | {vocab[r['tokenizer']]} | {_fmt(r['ne'])} | {_fmt(r['non_ne'])} | {_fmt(r['all'])} |"
        for r in by_vocab(table4, vocab)
    )
    paper = "\n".join(f"| paper {k} | | {v['ne']:.2f} | {v['non_ne']:.2f} | |" for k, v in PAPER_TABLE4.items())
    policies = "; ".join(dict.fromkeys(r["boundary_policy"] for r in table4))
    links = ", ".join(f"[{b}]({p})" for b, p in analysis.get("by", {}).items())
    return Section(
        "Table 4: additional segmentation (%)",
        f"Dataset: `{analysis['table4_dataset']}`. Additional segmentation = pieces / words − 1, with 95 % "
        f"bootstrap CIs over sentences ({config.analysis.bootstrap} resamples). Counting: {policies}.\n\n"
        "| tokenizer | vocab | NE | non-NE | all |\n|---|---:|---|---|---|\n"
        + rows
        + "\n"
        + paper
        + "\n\n![Table 4](figures/table4.png)\n\nNE and non-NE words by entity type, language and dataset: "
        + links
        + ".",
    )


def _correlation_section(correlation: list[dict]) -> Section:
    """Pearson r of a word's pieces with its label errors, per model and task (``correlation.json``)."""
    rows = "\n".join(
        f"| {c['tokenizer']} / {c['model']} | {a['r']:.3f} | [{a['low']:.3f}, {a['high']:.3f}] | "
        f"{format_p(a['p_value'])} | {a['spearman']:.3f} | {a['n']} |"
        for c in correlation
        for a in (c["all"],)
    )
    return Section(
        "Segmentation vs label errors",
        "Pearson r between a word's number of pieces and whether the fine-tuned model mislabelled it "
        f"(paper: {PAPER_PEARSON}).\n\n| model / task | Pearson r | 95 % CI | p | Spearman ρ | words |\n"
        "|---|---:|---|---:|---:|---:|\n" + rows + "\n\n![errors](figures/error_by_pieces.png)",
    )
