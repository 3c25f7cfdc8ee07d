"""The study's analysis stage: Table 4 (+ by type and language), correlation with errors and its
attribution (odds ratio per extra piece beyond frequency, entity status and length), Tables 1-2, report.

Everything is computed by the public API (:mod:`tokstudy.analysis`, :mod:`tokstudy.report`)
and written as CSV/JSON under ``<root>/tables`` and PNG/SVG under ``<root>/figures``; the
report (:func:`write_report`) only reads those files back, so what it states is exactly
what the tables hold.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import warnings
from collections import defaultdict
from pathlib import Path

from tokstudy.study.config import StudyConfig
from tokstudy.study.findings import PAPER_PEARSON, PAPER_TABLE4, all_findings, format_p
from tokstudy.study.report import Section, write_study_report
from tokstudy.study.sources import Sources


def _est(e) -> dict:
    d = e.as_dict()
    return {"value": d["value"], "low": d["low"], "high": d["high"], "n_words": d["n_words"]}


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=float))


def _write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        if rows:
            fields = list(dict.fromkeys(k for r in rows for k in r))
            w = csv.DictWriter(fh, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)


def _load_analysis_datasets(config: StudyConfig, sources: Sources) -> tuple[list, list[str]]:
    datasets, skipped = [], []
    for spec in config.analysis.datasets:
        if spec.startswith("hf:"):  # hf:NAME[@CONFIG]:SPLIT
            from tokstudy.data.hub import parse_hf_spec

            name, cfg, split = parse_hf_spec(spec)
            datasets.append(sources.dataset(f"hf:{name}" + (f"@{cfg}" if cfg else ""), split))
            continue
        parts = spec.split(":")
        name, split = parts[0], parts[-1]
        language = parts[1] if len(parts) == 3 else None
        if not sources.has_dataset(name):
            skipped.append(spec)
            continue
        datasets.append(sources.dataset(name, split, language=language))
    return datasets, skipped


def analyse(
    work: Path,
    root: Path,
    tokenizer_dirs: dict[str, Path],
    runs: list[dict],
    config: StudyConfig,
    sources: Sources,
    *,
    progress: bool = True,
    pretrain_cost: dict | None = None,
) -> dict:
    """Compute every table and figure of the study; returns their paths (relative to ``root``).

    ``runs`` holds the pre-trained models' fine-tuning runs and, marked ``pretrained: False``, the
    no-pre-training controls' (scored against their models in ``tables/control.json``, left out of
    the segmentation-error analysis); ``pretrain_cost`` maps each tokenizer to its pre-training cost.
    """
    from tokstudy.analysis.stats import additional_segmentation_by, compare_tokenizers, segmentation_summary
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.tokenization.loading import load_tokenizer

    sec = config.analysis
    boot = {"n_resamples": sec.bootstrap, "seed": sec.seed}
    tables, figures = root / "tables", root / "figures"
    segmenters = [
        load_tokenizer(d, name=n, count_lone_boundary=sec.count_lone_boundary) for n, d in tokenizer_dirs.items()
    ]
    vocab = {n: _vocab_size(d) for n, d in tokenizer_dirs.items()}
    datasets, skipped = _load_analysis_datasets(config, sources)
    out: dict = {"skipped_datasets": skipped, "tokenizers": list(tokenizer_dirs), "vocab_sizes": vocab}

    # Table 4 on the primary (first) dataset, then on every dataset/language.
    primary = segmentation_table(datasets[:1], segmenters, progress=progress)
    table4 = {}
    table4_rows = compare_tokenizers(primary, **boot)
    for row in table4_rows:
        table4[row.tokenizer] = {
            "vocab_size": vocab[row.tokenizer],
            "ne": _est(row.ne),
            "non_ne": _est(row.non_ne),
            "all": _est(row.all),
            "boundary_policy": row.boundary_policy,
        }
    _write_json(tables / "table4.json", {"dataset": config.analysis.datasets[0], "rows": table4})
    _write_csv(
        tables / "table4.csv",
        [
            {
                "tokenizer": t,
                "vocab_size": r["vocab_size"],
                **{f"{k}_{f}": r[k][f] for k in ("ne", "non_ne", "all") for f in ("value", "low", "high")},
            }
            for t, r in table4.items()
        ],
    )
    summaries = {s.tokenizer: s for s in (segmentation_summary(primary, n, **boot) for n in tokenizer_dirs)}
    _write_json(
        tables / "summary.json",
        {
            n: {
                sub: {
                    k: _est(getattr(getattr(s, sub), k))
                    for k in ("additional_segmentation", "fertility", "continued", "unknown", "pieces_per_continued")
                }
                for sub in ("ne", "non_ne", "all")
            }
            for n, s in summaries.items()
        },
    )

    full = segmentation_table(datasets, segmenters, progress=progress)
    grouped = {}
    for by in ("entity_type", "language", "dataset"):
        for subset in ("ne", "non_ne"):
            for n in tokenizer_dirs:
                g = additional_segmentation_by(full, n, by=by, subset=subset, **boot)
                grouped.setdefault(by, []).extend(
                    {"tokenizer": n, "subset": subset, "group": k, **_est(e)} for k, e in g.groups.items()
                )
    for by, rows in grouped.items():
        _write_csv(tables / f"by_{by}.csv", rows)
    (tables / "by_language.md").write_text(
        _by_group_markdown(grouped["language"], list(tokenizer_dirs)), encoding="utf-8"
    )
    out["parity"] = _parity(tables, figures, segmenters, config, sources, boot)
    out["by"] = {by: f"tables/by_{by}.csv" for by in grouped}

    pretrained_runs = [r for r in runs if r.get("pretrained", True)]
    errors = _errors_and_scores(root, tables, figures, segmenters, pretrained_runs, config, sources, boot, progress)
    correlations = errors.pop("results")
    attr_rows = errors.pop("attribution_rows")
    out.update(errors)
    out["figures"] = _figures(root, figures, table4_rows, vocab, correlations, attr_rows)
    out.update(_control_and_cost(root, tables, figures, runs, pretrain_cost or {}))
    out["table4"] = "tables/table4.json"
    return out


def _control_and_cost(root: Path, tables: Path, figures: Path, runs: list[dict], pretrain_cost: dict) -> dict:
    """Pre-trained vs no-pre-training control, what every run cost, and the score-versus-energy figure."""
    from tokstudy.report.figures import plot_score_vs_energy
    from tokstudy.study.compare import control_comparison, cost_table, energy_points

    control = control_comparison(runs)
    costs = cost_table(runs, pretrain_cost)
    _write_json(tables / "control.json", control)
    _write_json(tables / "cost.json", costs)
    _write_csv(
        tables / "cost.csv",
        [{"stage": "pretrain", "task": "", "model": t, **(c or {})} for t, c in costs["pretrain"].items()]
        + [
            {"stage": "finetune", "task": task, "model": m, **(c or {})}
            for task, by in costs["finetune"].items()
            for m, c in by.items()
        ],
    )
    scores = json.loads((tables / "scores.json").read_text())
    points = energy_points(scores, control, costs)
    written = plot_score_vs_energy(points, figures / "score_vs_energy") if points else []
    return {
        "control": "tables/control.json",
        "cost": "tables/cost.json",
        "energy_figure": [str(Path(p).relative_to(root)) for p in written],
    }


def _by_group_markdown(rows: list[dict], tokenizers: list[str]) -> str:
    """Languages (or datasets) down, tokenizers across, NE / non-NE additional segmentation in each cell."""
    cell: dict = defaultdict(dict)
    for r in rows:
        cell[r["group"]][(r["tokenizer"], r["subset"])] = r
    head = "| language | " + " | ".join(f"{t} NE / non-NE" for t in tokenizers) + " |\n|---|" + "---|" * len(tokenizers)
    lines = []
    for group, by in cell.items():
        vals = []
        for t in tokenizers:
            ne, non = by.get((t, "ne")), by.get((t, "non_ne"))
            vals.append(f"{ne['value']:.1f} / {non['value']:.1f}" if ne and non else "")
        lines.append(f"| {group} | " + " | ".join(vals) + " |")
    return head + "\n" + "\n".join(lines)


def _parity(tables: Path, figures: Path, segmenters, config: StudyConfig, sources: Sources, boot: dict) -> dict:
    """Fertility and parity across languages on the parallel corpus, when it is available."""
    corpus = config.analysis.parity_corpus
    directory = sources.corpus_path(corpus) if corpus else None
    if directory is None:
        return {}
    from tokstudy.analysis.parity import parity, read_parallel_text
    from tokstudy.report.figures import plot_parity
    from tokstudy.report.tables import parity_markdown, parity_rows

    results = parity(read_parallel_text(directory), segmenters, **boot)
    _write_csv(tables / "parity.csv", parity_rows(results))
    (tables / "parity.md").write_text(parity_markdown(results), encoding="utf-8")
    figs = plot_parity(results, figures / "parity")
    return {"csv": "tables/parity.csv", "figures": [str(Path(f).relative_to(tables.parent)) for f in figs]}


def _vocab_size(tok_dir: Path) -> int:
    meta = tok_dir / "training.json"
    if meta.is_file():
        data = json.loads(meta.read_text())
        return int(data.get("vocab_size") or data.get("config", {}).get("vocab_size", 0))
    return 0


def _errors_and_scores(root, tables, figures, segmenters, runs, config, sources, boot, progress) -> dict:
    """Correlation of segmentation with errors (NER tasks), and Tables 1-2 (every task)."""
    from tokstudy.analysis.alignment import align_predictions
    from tokstudy.analysis.attribution import attribute_errors, word_counts
    from tokstudy.analysis.correlation import correlate_errors
    from tokstudy.analysis.predictions import read_predictions
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.analysis.welch import summarize, welch_p
    from tokstudy.report.attribution import attribution_rows, frequency_rows
    from tokstudy.report.table3 import examples, examples_markdown, select_sentences

    by_seg = {s.name: s for s in segmenters}
    scores: dict = defaultdict(dict)
    correlation: dict = {}
    pooled_err: dict = {}
    example_md: list[str] = []
    results: list = []
    attributions: list = []
    per_task_runs: dict = defaultdict(lambda: defaultdict(list))
    for r in runs:
        per_task_runs[r["task"]][r["tokenizer"]].append(r)

    for task, by_tok in per_task_runs.items():
        names = list(by_tok)
        for tok, rs in by_tok.items():
            summary = summarize([r["score"] for r in rs])
            scores[task][tok] = {
                "mean": summary.mean,
                "std": summary.std,
                "n": summary.n,
                "metric": rs[0]["metric"],
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

        spec = next(iter(by_tok.values()))[0]
        if not spec.get("predictions"):
            continue
        task_spec = next(t for t in config.finetune.tasks if t.label == task)
        test = sources.dataset(task_spec.dataset, "test", language=task_spec.language, limit=task_spec.max_eval)
        table = segmentation_table([test], [by_seg[t] for t in by_tok], progress=False)
        # word frequencies of what the model was fine-tuned on (the same cut of the training split)
        train_counts = word_counts(
            sources.dataset(task_spec.dataset, "train", language=task_spec.language, limit=task_spec.max_train)
        )
        aligned_all = []
        for tok, rs in by_tok.items():
            # the first seed's predictions, as the paper reports one model per vocabulary
            preds = read_predictions(root / rs[0]["predictions"])
            # published where the app looks for them: predictions/<model>/<dataset>_<split>.tsv
            published = root / "predictions" / tok / f"{task_spec.dataset}_test.tsv"
            published.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rs[0]["predictions"], published)
            aligned = dataclasses.replace(align_predictions(table, preds), model=f"model {tok}")
            aligned_all.append(aligned)
            res = correlate_errors(table, dataclasses.replace(aligned, model=task), tokenizer=tok, **boot)
            results.append(res)
            attributions.append(
                attribute_errors(
                    table,
                    dataclasses.replace(aligned, model=task),
                    tokenizer=tok,
                    train=train_counts,
                    train_label=f"{task_spec.dataset}:train",
                )
            )
            correlation[f"{tok} / {task}"] = _correlation_dict(res)
            pooled_err[f"{tok} / {task}"] = _error_by_pieces_dict(res)
        chosen = select_sentences(table, config.analysis.n_examples)
        example_md.append(f"### {task}\n\n" + examples_markdown(examples(table, chosen, aligned_all)))

    _write_json(tables / "scores.json", scores)
    _write_csv(
        tables / "scores.csv",
        [
            {"task": t, "tokenizer": m, **{k: v for k, v in s.items() if k != "values"}}
            for t, by in scores.items()
            for m, s in by.items()
        ],
    )
    _write_json(tables / "correlation.json", correlation)
    _write_json(tables / "error_by_pieces.json", pooled_err)
    if attributions:
        _write_json(
            tables / "attribution.json",
            {"attribution": attribution_rows(attributions), "by_frequency": frequency_rows(attributions)},
        )
        _write_csv(tables / "attribution.csv", attribution_rows(attributions))
    if example_md:
        (tables / "table3.md").write_text("\n\n".join(example_md), encoding="utf-8")
    return {
        "scores": "tables/scores.json",
        "correlation": "tables/correlation.json",
        "error_by_pieces": pooled_err,
        "results": results,
        "attribution_rows": attribution_rows(attributions),
    }


def _correlation_dict(res) -> dict:
    c, ne = res.all, res.ne
    return {
        "pearson_r": float(c.r),
        "p_value": float(c.p_value),
        "low": float(c.low),
        "high": float(c.high),
        "n": int(c.n),
        "spearman_rho": float(c.spearman),
        "ne_pearson_r": float(ne.r),
        "ne_p_value": float(ne.p_value),
        "error_rate": float(res.error_rate),
        "entities_found": f"{res.entities.n_found}/{res.entities.n_entities}",
    }


def _error_by_pieces_dict(res) -> dict:
    return {b.pieces: {"error_rate": float(b.error_rate), "n": int(b.n)} for b in res.by_pieces}


def _figures(
    root: Path, figures: Path, table4_rows: list, vocab: dict, correlations: list, attribution: list = ()
) -> list[str]:
    """Additional segmentation by vocabulary × NE/non-NE, error rate by pieces, odds ratios
    (tokstudy.report.figures)."""
    from tokstudy.report.figures import plot_additional_segmentation, plot_error_by_pieces, plot_odds_ratios

    written = plot_additional_segmentation(table4_rows, figures / "table4", vocab_sizes=vocab)
    if correlations:
        written += plot_error_by_pieces(correlations, figures / "error_by_pieces")
    if attribution:
        written += plot_odds_ratios(attribution, figures / "odds_ratios")
    return [str(Path(p).relative_to(root)) for p in written]


# --- report -------------------------------------------------------------------------

SMOKE_TEST_NOTE = (
    "This configuration checks that every stage of the study runs, end to end, in minutes. Its models are "
    "tiny and trained for a few hundred steps on a few thousand sentences, so their scores, the correlation "
    "of segmentation with their errors and the pre-training control say nothing about tokenization: read "
    "them as a smoke test. The segmentation tables (Table 4, by language, parity) do not depend on the "
    "models. For models worth analysing run `tokstudy study cpu` (or `gpu`)."
)


def _read_optional(path: Path):
    return json.loads(path.read_text()) if path.is_file() else None


def _existing(root: Path, relative: str) -> str | None:
    return relative if (root / relative).is_file() else None


def _fmt(e: dict) -> str:
    if e.get("low") is None:
        return f"{e['value']:.2f}"
    return f"{e['value']:.2f} [{e['low']:.2f}, {e['high']:.2f}]"


def write_report(root: Path, analysis: dict, config: StudyConfig, sources: Sources) -> dict[str, Path]:
    """Assemble report.md / report.html from the tables the analysis wrote."""
    t4 = json.loads((root / "tables" / "table4.json").read_text())
    table4 = t4["rows"]
    correlation = json.loads((root / "tables" / "correlation.json").read_text())
    scores = json.loads((root / "tables" / "scores.json").read_text())
    attr_path = root / "tables" / "attribution.json"
    attribution = json.loads(attr_path.read_text()) if attr_path.is_file() else None
    control = _read_optional(root / "tables" / "control.json") or {}
    costs = _read_optional(root / "tables" / "cost.json")
    order = sorted(table4, key=lambda t: table4[t]["vocab_size"])
    sections = []

    data_note = (
        "\n\n".join(sources.notes) if sources.notes else f"All inputs are the real corpora at `{sources.data_dir}`."
    )
    sections.append(
        Section(
            "Data",
            data_note
            + (
                f"\n\nSkipped (not available): {analysis['skipped_datasets']}."
                if analysis.get("skipped_datasets")
                else ""
            ),
        )
    )
    if config.smoke_test:
        sections.append(Section("These models are a smoke test", SMOKE_TEST_NOTE))
    found = all_findings(table4, correlation, scores, attribution["attribution"] if attribution else None, control)
    sections.append(Section("Findings", "\n".join(f.markdown() for f in found)))

    policy = next(iter(table4.values()))["boundary_policy"]
    rows = "\n".join(
        f"| {t} | {table4[t]['vocab_size']} | {_fmt(table4[t]['ne'])} | {_fmt(table4[t]['non_ne'])} | "
        f"{_fmt(table4[t]['all'])} |"
        for t in order
    )
    paper = "\n".join(f"| paper {k} | | {v['ne']:.2f} | {v['non_ne']:.2f} | |" for k, v in PAPER_TABLE4.items())
    sections.append(
        Section(
            "Table 4: additional segmentation (%)",
            f"Dataset: `{t4['dataset']}`. Additional segmentation = pieces / words − 1, with 95 % bootstrap CIs "
            f"over sentences ({config.analysis.bootstrap} resamples). Counting: {policy}.\n\n"
            "| tokenizer | vocab | NE | non-NE | all |\n|---|---:|---|---|---|\n"
            + rows
            + "\n"
            + paper
            + "\n\n![Table 4](figures/table4.png)\n\nBy entity type, language and dataset: "
            + ", ".join(f"[{b}]({p})" for b, p in analysis.get("by", {}).items())
            + ".",
        )
    )
    if correlation:
        crow = "\n".join(
            f"| {m} | {c['pearson_r']:.3f} | [{c['low']:.3f}, {c['high']:.3f}] | {format_p(c['p_value'])} | "
            f"{c['spearman_rho']:.3f} | {c['n']} |"
            for m, c in correlation.items()
        )
        sections.append(
            Section(
                "Segmentation vs label errors",
                "Pearson r between a word's number of pieces and whether the fine-tuned model mislabelled it "
                f"(paper: {PAPER_PEARSON}).\n\n| model / task | Pearson r | 95 % CI | p | Spearman ρ | words |\n"
                "|---|---:|---|---:|---:|---:|\n" + crow + "\n\n![errors](figures/error_by_pieces.png)",
            )
        )
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
    if scores:
        from tokstudy.study.compare import tables_1_2_markdown

        sections.append(
            Section(
                "Tables 1-2: fine-tuning scores and what each model cost",
                tables_1_2_markdown(
                    scores,
                    control,
                    costs,
                    order,
                    config.finetune.seeds,
                    figure=_existing(root, "figures/score_vs_energy.png"),
                ),
            )
        )
    by_lang = root / "tables" / "by_language.md"
    if by_lang.is_file():
        sections.append(
            Section(
                "Additional segmentation by language (%)",
                "Every labelled dataset of the run, NE / non-NE words.\n\n" + by_lang.read_text(),
            )
        )
    par = root / "tables" / "parity.md"
    if par.is_file():
        sections.append(
            Section("Fertility and parity across languages", par.read_text() + "\n\n![parity](figures/parity.png)")
        )
    examples = root / "tables" / "table3.md"
    if examples.is_file():
        sections.append(Section("Table 3: segmentation examples", examples.read_text()))
    sections.append(Section("Reproduce", f"```\ntokstudy study {config.name}\n```\nConfiguration: `config.json`."))
    return write_study_report(root, f"tokstudy study: {config.name}", sections)
