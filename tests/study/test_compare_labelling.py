"""``finetune.compare_labelling``: each NER task's twin with the other labelling of pieces, runs of its own, cache
keys of the default studies unchanged, and the report's piece-agreement table from the runs' per-piece files."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tokstudy.analysis.model_errors.piece_agreement import piece_agreement
from tokstudy.analysis.model_errors.piece_predictions import (
    PieceSentence,
    PredictedWord,
    piece_predictions_path,
    read_piece_predictions,
    write_piece_predictions,
)
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.report.assemble import PIECES_TITLE, pieces_section
from tokstudy.report.result import read_table, write_table
from tokstudy.study.config import FinetuneSection, StudyConfig, TaskSpec, load_study_config
from tokstudy.study.error_analysis import pieces_table
from tokstudy.study.pipeline import finetune_key, finetune_runs, task_key
from tokstudy.study.scored_runs import ScoredRun
from tokstudy.study.tasks import with_labelling_twins

TASKS = (TaskSpec("conll2003"), TaskSpec("snips", "classification"), TaskSpec("wikiann:*", label_all_pieces=True))


def test_off_by_default_and_the_default_studies_keys_do_not_change():
    for name in ("demo", "cpu"):
        ft = load_study_config(name).finetune
        assert not ft.compare_labelling
        assert "compare_labelling" not in finetune_key(ft)
        assert all("variant" not in task_key(t) for t in ft.tasks)
        assert with_labelling_twins(ft.tasks, ft) == ft.tasks
    on = FinetuneSection(compare_labelling=True)
    assert finetune_key(on)["compare_labelling"] is True  # every fine-tuning run reruns, writing its pieces
    assert task_key(dataclasses.replace(TASKS[0], variant="allpieces"))["variant"] == "allpieces"


def test_each_ner_task_gets_its_twin_with_the_other_labelling():
    section = FinetuneSection(compare_labelling=True)
    tasks = with_labelling_twins(TASKS, section)
    got = [(t.label, t.settings(section).label_all_pieces) for t in tasks]
    assert got == [
        ("conll2003-ner", False),
        ("conll2003-ner-allpieces", True),
        ("snips-classification", False),
        ("wikiann-*-ner", True),
        ("wikiann-*-ner-firstpiece", False),
    ]
    every = dataclasses.replace(section, label_all_pieces=True)
    assert [t.label for t in with_labelling_twins(TASKS[:1], every)] == ["conll2003-ner", "conll2003-ner-firstpiece"]


def test_the_twins_have_fine_tuning_runs_of_their_own():
    config = StudyConfig()
    ft = dataclasses.replace(config.finetune, tasks=TASKS[:1], seeds=2, compare_labelling=True)
    config = dataclasses.replace(config, finetune=dataclasses.replace(ft, tasks=with_labelling_twins(ft.tasks, ft)))
    stages = [r.stage for r in finetune_runs(config, ["sp8k"])]
    assert stages == [
        "finetune/sp8k/conll2003-ner/seed0",
        "finetune/sp8k/conll2003-ner/seed1",
        "finetune/sp8k/conll2003-ner-allpieces/seed0",
        "finetune/sp8k/conll2003-ner-allpieces/seed1",
    ]


def _pieces(path, seed: int):
    rng = np.random.default_rng(seed)
    labels = ("O", "B-PER", "I-PER")
    sentences = []
    for s in range(12):
        words = []
        for w in range(4):
            n = int(rng.integers(1, 4))
            gold = labels[int(rng.integers(0, 3))]
            words.append(
                PredictedWord(f"w{w}", gold, n, tuple("p" * (j + 1) for j in range(n)), rng.dirichlet([1, 1, 1], n))
            )
        sentences.append(PieceSentence(s, tuple(words)))
    return write_piece_predictions(path, labels, sentences)


def test_the_table_reads_each_models_first_seed_and_the_section_reads_it_back(tmp_path):
    runs = []
    for task in ("conll2003-ner", "conll2003-ner-allpieces"):
        for seed in (1, 0):  # the first seed is not the first row
            folder = tmp_path / "finetune" / "sp8k" / task / f"seed{seed}" / "seed-1"
            folder.mkdir(parents=True)
            words = folder / "predictions.test.tsv"
            words.write_text("", encoding="utf-8")
            _pieces(piece_predictions_path(words), seed + (10 if "all" in task else 0))
            rel = str(words.relative_to(tmp_path))
            runs.append(ScoredRun("sp8k", task, seed, True, 90.0, "F1", predictions=rel))
    runs.append(ScoredRun("sp8k", "snips-classification", 0, True, 95.0, "accuracy"))
    table = pieces_table(tmp_path, runs, bootstrap=BootstrapSettings(0))
    models = [row["model"] for row in table.data]
    assert models == ["sp8k conll2003-ner", "sp8k conll2003-ner-allpieces"]
    seed0 = runs[1].predictions
    want = piece_agreement(
        read_piece_predictions(piece_predictions_path(tmp_path / seed0)), bootstrap=BootstrapSettings(0)
    )
    assert table.data[0]["n_disagree"] == want.n_disagree
    write_table(table, tmp_path / "tables")
    back = read_table(tmp_path / "tables", "pieces")
    section = pieces_section(back)
    assert section.title == PIECES_TITLE and "| sp8k conll2003-ner-allpieces | first |" in section.body
    assert "[pieces.md](pieces.md)" in section.body
    assert pieces_table(tmp_path, runs[-1:]) is None and pieces_section(None) is None


@pytest.mark.parametrize("name", ["demo", "cpu"])
def test_the_shipped_configs_load_with_the_switch_set(name, tmp_path):
    import json

    config = load_study_config(name)
    data = config.to_dict()
    data["finetune"]["compare_labelling"] = True
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_study_config(path).finetune.compare_labelling


def test_a_study_with_the_switch_reports_the_section_and_rerenders_it(tmp_path):
    """The tiny study on the fake backend (generated sample data), one vocabulary and one seed: the twin task is
    fine-tuned, the table is written, the report shows it, and a re-rendered report shows the same."""
    from tests.study.fake_backend import FakeBackend
    from tokstudy.study.pipeline import run_study
    from tokstudy.study.report_sections import rerender_study_report

    empty = tmp_path / "no_corpora"
    empty.mkdir()
    tiny = Path(__file__).with_name("tiny_study.yaml")
    config = load_study_config(tiny, output_dir=str(tmp_path / "out"), data_dir=str(empty))
    ft = dataclasses.replace(
        config.finetune, tasks=config.finetune.tasks[:1], seeds=1, no_pretraining_control=False, compare_labelling=True
    )
    tokenizers = dataclasses.replace(config.tokenizers, vocab_sizes=(500,))
    analysis = dataclasses.replace(config.analysis, datasets=("conll2003:test",), parity_corpus=None)
    config = dataclasses.replace(config, finetune=ft, tokenizers=tokenizers, analysis=analysis)
    backend = FakeBackend()
    result = run_study(config, backend=backend, log=lambda m: None, progress=False)
    tasks = [c[3] for c in backend.calls if c[0] == "finetune"]
    assert tasks == ["conll2003-ner", "conll2003-ner-allpieces"]
    report = result.report_markdown.read_text(encoding="utf-8")
    assert f"## {PIECES_TITLE}" in report and "conll2003-ner-allpieces | majority |" in report
    table = read_table(result.root / "tables", "pieces")
    assert [row["model"] for row in table.data] == [
        "sp-unigram-500 conll2003-ner",
        "sp-unigram-500 conll2003-ner-allpieces",
    ]
    # each model's predictions published for the app, the twin as a model of its own, per-piece files beside them
    for model in ("sp-unigram-500", "sp-unigram-500-allpieces"):
        words = result.root / "predictions" / model / "conll2003_test.tsv"
        assert words.is_file() and piece_predictions_path(words).is_file()
    rerender_study_report(result.root, data_dir=empty)
    assert result.report_markdown.read_text(encoding="utf-8") == report


def test_the_twins_are_no_languages_of_their_own(tmp_path):
    """The multilingual study at toy size with the switch: every NER task is fine-tuned twice, and the languages
    part still has each language once per tokenizer."""
    import json

    from tests.study.fake_backend import FakeBackend
    from tests.study.toy_multilingual import MASAKHANER, MULTICONER_TRAIN, toy_multilingual_config, write_toy_data
    from tokstudy.study.pipeline import run_study

    config = toy_multilingual_config(write_toy_data(tmp_path / "data"), tmp_path / "out")
    ft = dataclasses.replace(config.finetune, compare_labelling=True)
    backend = FakeBackend()
    result = run_study(dataclasses.replace(config, finetune=ft), backend=backend, log=lambda m: None, progress=False)
    ner = [c[3] for c in backend.calls if c[0] == "finetune" and c[3].endswith(("-ner", "-allpieces"))]
    assert sum(t.endswith("-allpieces") for t in ner) == sum(t.endswith("-ner") for t in ner) > 0
    rows = json.loads((result.root / "tables" / "languages.json").read_text(encoding="utf-8"))
    n_languages = len(MASAKHANER) + len(MULTICONER_TRAIN) + 1
    assert len(rows) == 3 * n_languages and not any(r["task"].endswith("-allpieces") for r in rows)
    assert "## Pieces that disagree, and how words get their label" in result.report_markdown.read_text()
