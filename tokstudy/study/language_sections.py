"""The report's sections on languages (``analysis.per_language``): what the models were trained on, what was cut
to fit the time, and each language's segmentation against its F1.

Made from the tables the analysis stage wrote (``languages``, ``cross_language``, ``vocabulary_gain``,
``task_data``, ``task_text`` of :class:`~tokstudy.report.result.StudyTables`) and the study's configuration;
the statistics are :mod:`tokstudy.study.across_languages`'s. A finding is decided from intervals, never from point
estimates: across languages, "more segmentation, lower F1" is a yes for a (tokenizer, set of languages) when the
bootstrap interval of Spearman's rho over languages lies below 0, a no when it lies above 0.

>>> from tokstudy.study.language_rows import RankCorrelation
>>> rows = [CrossLanguageRow("a", "masakhaner2", "ne", RankCorrelation(-0.6, 0.01, -0.9, -0.2, 20, 1000, 0))]
>>> language_findings(rows)[0].holds
True
"""

from __future__ import annotations

import math
from collections import defaultdict

from tokstudy.analysis.table.bytepieces import BYTE_PIECE_THRESHOLD
from tokstudy.report.assemble import Section
from tokstudy.report.numbers import format_p
from tokstudy.report.verdict import NO_FIT, Verdict
from tokstudy.study.config import StudyConfig
from tokstudy.study.findings import Finding
from tokstudy.study.language_rows import CrossLanguageRow, LanguageRow, VocabularyGain
from tokstudy.study.task_rows import TaskData, TaskText

#: how each measure is named in the report
MEASURE_NAMES = {"ne": "NE words", "all": "all words"}
#: the paper's vocabulary sizes and seeds, beside the study's own when it says what was cut
PAPER_VOCABULARIES = "32k / 64k / 128k"
PAPER_SEEDS = 10
#: unknown pieces % of a language above which the report names it (the unknown-piece warning's threshold)
UNKNOWN_NOTE = 1.0
#: byte pieces % (UTF-8 bytes, not whole characters) of a language above which the report names it (the
#: byte-piece warning's threshold, :data:`tokstudy.analysis.table.bytepieces.BYTE_PIECE_THRESHOLD`)
BYTE_PIECE_NOTE = 100 * BYTE_PIECE_THRESHOLD


def _ok(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _decimal(v, digits: int = 1) -> str:
    return f"{v:.{digits}f}" if _ok(v) else "–"


def _ci(v, low, high, digits: int = 1) -> str:
    if not _ok(v):
        return "–"
    return f"{v:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]" if _ok(low) and _ok(high) else f"{v:.{digits}f}"


def _interval(low, high, digits: int = 2) -> str:
    return f"[{low:.{digits}f}, {high:.{digits}f}]" if _ok(low) and _ok(high) else "–"


def _group_name(group: str, n: int) -> str:
    return f"all corpora ({n} tasks)" if group == "all" else f"{group} ({n} languages)"


def vocabulary_finding(gains: list[VocabularyGain]) -> Finding:
    """Does F1 rise from the smallest vocabulary to the largest, language by language? One case per language:
    yes when Welch's interval of the gain lies above 0, no when below, undecided when it holds 0 or there is none
    (one seed)."""
    outcomes = [
        (True if g.low > 0 else False if g.high < 0 else None) if _ok(g.low) and _ok(g.high) else None for g in gains
    ]
    up = sum(1 for g in gains if _ok(g.gain) and g.gain > 0)
    down = sum(1 for g in gains if _ok(g.gain) and g.gain < 0)
    show = lambda g: f"{g.language} ({g.dataset}) {g.gain:+.1f}"  # noqa: E731
    evidence = (
        f"F1 at {gains[0].large} above {gains[0].small} in {up} of {len(gains)} languages, below in {down} "
        f"(point estimates); largest gains: {', '.join(show(g) for g in gains[:3])}; smallest: "
        f"{', '.join(show(g) for g in gains[-3:][::-1])}"
    )
    return Finding(
        "F1 rises from the smallest vocabulary to the largest, language by language:",
        Verdict.tally(outcomes),
        evidence + ".",
    )


def _rho_case(r: CrossLanguageRow) -> tuple[bool | None | str, str]:
    """One (tokenizer, set of languages) of the cross-language finding: its outcome and how it reads."""
    c = r.correlation
    where = f"{r.tokenizer} / {_group_name(r.group, c.n)}"
    if not (_ok(c.rho) and _ok(c.low)):
        return NO_FIT, f"{where}: rho undefined"
    outcome = True if c.high < 0 else False if c.low > 0 else None
    return outcome, f"{where}: rho = {c.rho:.2f} [{c.low:.2f}, {c.high:.2f}]"


def language_findings(cross: list[CrossLanguageRow], gains: list[VocabularyGain] = ()) -> list[Finding]:
    """One finding per measure: across languages, does a language whose words are more segmented score lower F1?
    One case per (tokenizer, set of languages): yes when the interval of rho lies below 0, no when above. Then,
    with ``gains`` (``vocabulary_gain.json``), :func:`vocabulary_finding`."""
    out = []
    for measure, name in MEASURE_NAMES.items():
        cases = [_rho_case(r) for r in cross if r.measure == measure]
        if cases:
            out.append(
                Finding(
                    f"Across languages, the more a language's {name} are segmented, the lower its F1 (Spearman's "
                    "rho below 0, 95 % bootstrap interval over languages):",
                    Verdict.tally(c[0] for c in cases),
                    "; ".join(c[1] for c in cases) + ".",
                )
            )
    return out + ([vocabulary_finding(list(gains))] if gains else [])


def training_text_section(config: StudyConfig, task_text: list[TaskText] | None) -> Section:
    """Which text the vocabularies and the models were trained on: the raw text alone, or the tasks' words too
    (``add_task_text``), and what that changes in what the languages section means."""
    tok, pre = config.tokenizers.add_task_text, config.pretrain.add_task_text
    raw = (
        f"Vocabularies: `{', '.join(config.tokenizers.corpora)}` ({config.tokenizers.sample_size:,} sentences drawn "
        f"at random); pre-training: `{', '.join(config.pretrain.corpora)}`."
    )
    if not (tok or pre):
        return Section(
            "Training text",
            raw + " Only raw text: a task language absent from it is segmented with pieces learnt from other "
            "languages, and its model never saw it before fine-tuning.",
        )
    files = task_text or []
    listing = ", ".join(f"{f.dataset} {f.language} ({f.sentences:,})" for f in files)
    total = sum(f.sentences for f in files)
    added = " and ".join(x for x, on in (("the vocabularies' sample", tok), ("the pre-training corpus", pre)) if on)
    body = (
        f"{raw} **The words of the tasks' training splits were added to {added}** "
        f"(`add_task_text`; {total:,} sentences, never dev or test text): {listing}.\n\n"
    )
    if tok:
        body += (
            "So every task language was seen when the vocabularies were made, in proportion to its training split: "
            "a language's segmentation below is lower than a vocabulary trained on the raw text alone would give "
            "it, and the link between segmentation and F1 is measured among languages that all had text in the "
            "vocabulary's sample. "
        )
    if pre:
        body += (
            "The models saw every task language in pre-training (each training sentence its own document), so the "
            "F1 differences between languages are not those of a model that never saw a language."
        )
    return Section("Training text", body.strip())


def _range(values: list[int]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"


def _corpus_cuts(config: StudyConfig, task_data: list[TaskData]) -> list[str]:
    """One line per corpus: training and evaluation sentences used of those available, epochs."""
    by: dict = defaultdict(list)
    for record in task_data:
        by[record.corpus].append(record)
    lines = []
    for dataset, records in by.items():
        spec = next((t for t in config.finetune.tasks if t.dataset == dataset), None)
        epochs = spec.settings(config.finetune).epochs if spec else config.finetune.epochs
        train = [r.train for r in records]
        test = [r.test for r in records]
        cut = any(t.sentences < t.available for t in train)
        lines.append(
            f"`{dataset}` ({len(records)} task{'s' if len(records) > 1 else ''}): training sentences "
            f"{_range([t.sentences for t in train])} of {_range([t.available for t in train])}"
            f"{' (cut)' if cut else ''}; scored on {_range([t.sentences for t in test])} of "
            f"{_range([t.available for t in test])} `{test[0].split}` sentences; up to {epochs} "
            + ("epochs" if epochs > 1 else "epoch")
        )
    return lines


def cuts_section(config: StudyConfig, task_data: list[TaskData] | None) -> Section:
    """What was cut to fit the time budget, from the configuration and what each task read."""
    pre, ft, tok = config.pretrain, config.finetune, config.tokenizers
    sizes = " / ".join(f"{v // 1000}k" if v % 1000 == 0 else str(v) for v in tok.vocab_sizes)
    lines = [
        f"Vocabularies {sizes} (the paper: {PAPER_VOCABULARIES}), trained on {tok.sample_size:,} sentences.",
        f"Model: the `{pre.model}` ALBERT preset, pre-trained for {pre.total_steps:,} steps of {pre.batch_size} "
        f"sequences of {pre.max_seq_length} tokens"
        + (f" (at most {pre.max_examples:,} examples prepared)" if pre.max_examples else "")
        + ".",
        f"{ft.seeds} seed{'s' if ft.seeds > 1 else ''} per model and task (the paper: {PAPER_SEEDS})"
        + ("; with one seed no difference of scores has a test: each gain is one run" if ft.seeds < 2 else "")
        + ".",
    ]
    if not ft.no_pretraining_control:
        lines.append("No no-pre-training control: the report cannot say what pre-training added.")
    lines += [line + "." for line in _corpus_cuts(config, task_data or [])]
    return Section("What was cut to fit the time", "\n".join(f"- {line}" for line in lines))


def _cross_table(cross: list[CrossLanguageRow]) -> str:
    rows = [
        f"| {r.tokenizer} | {_group_name(r.group, c.n)} | {MEASURE_NAMES[r.measure]} | "
        f"{_decimal(c.rho, 2)} | {_interval(c.low, c.high)} | "
        f"{format_p(c.p_value)} | {c.undefined} |"
        for r in cross
        for c in (r.correlation,)
    ]
    return (
        "| tokenizer | languages | segmentation of | Spearman rho | 95 % CI (languages resampled) | p | "
        "resamples without rho |\n|---|---|---|---:|---|---:|---:|\n" + "\n".join(rows)
    )


def _language_table(rows: list[LanguageRow]) -> str:
    ordered = sorted(rows, key=lambda r: -r.ne if _ok(r.ne) else math.inf)
    body = [
        f"| {r.language} | {r.dataset} | {r.script.title()} | {_ci(r.ne, r.ne_low, r.ne_high)} | "
        f"{_ci(r.all, r.all_low, r.all_high)} | {_decimal(r.f1)}"
        + (f" ± {r.f1_sd:.1f}" if r.seeds > 1 and _ok(r.f1_sd) else "")
        + f" | {_ci(r.r, r.r_low, r.r_high, 3)} | {_ci(r.odds, r.odds_low, r.odds_high, 2)} |"
        for r in ordered
    ]
    return (
        "| language | corpus | script | NE words: additional segmentation % | all words % | F1 | word-level r "
        "(pieces, error) | odds ratio per extra piece |\n|---|---|---|---|---|---:|---|---|\n" + "\n".join(body)
    )


def _gain_table(gains: list[VocabularyGain]) -> str:
    if not gains:
        return "(one vocabulary: no gain to show)"
    body = [
        f"| {g.language} | {g.dataset} | {_decimal(g.f1_small)} | {_decimal(g.f1_large)} | "
        f"{_ci(g.gain, g.low, g.high)} | {_decimal(g.ne_small)} -> {_decimal(g.ne_large)} |"
        for g in gains
    ]
    head = f"| language | corpus | F1 {gains[0].small} | F1 {gains[0].large} | gain (95 % Welch CI) | "
    return head + "NE additional segmentation % |\n|---|---|---:|---:|---|---|\n" + "\n".join(body)


def _byte_piece_note(rows: list[LanguageRow]) -> list[str]:
    """The languages whose pieces are more than :data:`BYTE_PIECE_NOTE` % bytes, as one sentence (or none)."""
    high = [
        f"{r.language} ({r.dataset}) {r.byte_pieces:.1f} %"
        for r in rows
        if _ok(r.byte_pieces) and r.byte_pieces > BYTE_PIECE_NOTE
    ]
    if not high:
        return []
    return [
        f"Byte pieces above {BYTE_PIECE_NOTE:g} % of the pieces (UTF-8 bytes of characters, not whole characters: "
        f"their figures count bytes, not splits): {', '.join(high)}."
    ]


def languages_section(
    languages: list[LanguageRow],
    cross: list[CrossLanguageRow],
    gains: list[VocabularyGain],
    order: list[str],
    *,
    gain_csv: str,
) -> Section:
    """Each language's segmentation next to its F1 per tokenizer, the rank correlation across languages, the
    word-level link per language, and the languages a larger vocabulary helps most (``gain_csv``: the link to
    their CSV)."""
    parts = [
        "Each NER task is one language of one corpus. Segmentation: additional pieces per word (%) of the "
        "sentences the task was scored on, 95 % bootstrap CIs over sentences (Table 4's computation, per dataset "
        "and language). F1: the test score, mean over seeds. Spearman's rho relates the languages' segmentation to "
        "their F1; its interval resamples the languages (with replacement), so it says how much the correlation "
        "depends on which languages the corpus happens to hold. The word-level r (pieces of a word against its "
        "label error) and the odds ratio per extra piece (frequency, entity status and length held fixed) are the "
        "error analysis of each language's own predictions (first seed).",
        "### Across languages\n\n" + _cross_table(cross),
    ]
    for tok in order:
        mine = [r for r in languages if r.tokenizer == tok]
        if mine:
            parts.append(f"### {tok}: languages, most segmented NE words first\n\n" + _language_table(mine))
            high = [
                f"{r.language} ({r.dataset}) {r.unknown:.1f} %"
                for r in mine
                if _ok(r.unknown) and r.unknown > UNKNOWN_NOTE
            ]
            if high:
                parts.append(
                    f"Unknown pieces above {UNKNOWN_NOTE:g} % of the pieces (their segmentation is partly unknown "
                    f"pieces, not splits): {', '.join(high)}."
                )
            parts += _byte_piece_note(mine)
    parts.append(
        "### Where a larger vocabulary helps most\n\nF1 gain from the smallest vocabulary to the largest, largest "
        f"gain first ([csv]({gain_csv})).\n\n" + _gain_table(gains)
    )
    return Section("Languages: segmentation against F1", "\n\n".join(parts))
