"""The study end to end on real data (the tiny configuration of the same code path as `make demo`, its tokenizers
learnt from a quarter of its sample: 1,000 sentences give its largest vocabulary, 2,000 pieces, and the tokenizers'
time grows with the sample; its 24 fine-tuning runs on half their tasks' sentences, their time growing with them:
what the tests check of the report does not depend on how many).

One run is shared by the tests: the report must contain every table and figure; a second run must
reuse every stage; changing one fine-tuning setting must rerun fine-tuning and what follows only. A run killed
with SIGKILL during pre-training must complete when re-run: test_pipeline_killed.py (its own file, so that the two
pytest workers can take it and this file's shared run side by side).
"""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from pretrain.study_backend import PretrainBackend
from tests.conftest import corpus_path
from tests.study.conftest import TINY
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    for name in ("raw_text", "raw_text_large", "conll2003", "snips", "wikiann", "xquad_parallel"):
        corpus_path(name)
    config = load_study_config(TINY, output_dir=str(tmp_path_factory.mktemp("study") / "tiny"))
    tasks = tuple(
        dataclasses.replace(t, max_train=t.max_train // 2, max_eval=t.max_eval // 2) for t in config.finetune.tasks
    )
    config = dataclasses.replace(
        config,
        tokenizers=dataclasses.replace(config.tokenizers, sample_size=1000),
        finetune=dataclasses.replace(config.finetune, tasks=tasks),
    )
    return config, run_study(config, backend=PretrainBackend(), log=lambda m: None, progress=False)


def test_report_has_every_table_and_figure(first_run):
    import json

    _, result = first_run
    md = result.report_markdown.read_text()
    for heading in (
        "## Findings",
        "## Table 4",
        "## Segmentation vs label errors",
        "## Tables 1-2",
        "## Additional segmentation by language",
        "## Fertility and parity",
        "## Table 3",
    ):
        assert heading in md, heading
    assert "sp-unigram-500" in md and "sp-unigram-2k" in md
    for fig in ("table4", "error_by_pieces", "parity"):
        assert (result.root / "figures" / f"{fig}.png").stat().st_size > 1000
        assert f"figures/{fig}.png" in md
    assert "<table>" in result.report_html.read_text()
    # the attribution section and its finding, decided from the run's own odds ratios
    assert "## Does segmentation predict errors beyond frequency, entity status and length?" in md
    assert "- Segmentation predicts errors beyond frequency, entity status and length: **" in md
    assert (result.root / "tables" / "attribution.json").is_file()
    for t in ("table4.json", "table4.csv", "scores.json", "correlation.json", "by_language.csv", "parity.csv"):
        assert (result.root / "tables" / t).is_file(), t
    # a smoke-test configuration says so before its findings
    assert md.index("## These models are a smoke test") < md.index("## Findings")
    # the no-pre-training control sits next to the pre-trained models, with its finding decided from CIs
    assert "| task | sp-unigram-500 | sp-unigram-1k | sp-unigram-2k | sp-unigram-500 (no PT) |" in md
    assert "pre-training helps (F1 of the pre-trained model above the same architecture" in md
    assert sorted(p.name for p in (result.root / "control").iterdir()) == [
        "sp-unigram-1k",
        "sp-unigram-2k",
        "sp-unigram-500",
    ]
    # what each run cost, next to the scores, from the pre-trainer's and the fine-tuner's own records
    assert "| pre-training | " in md and "| fine-tuning conll2003-ner | " in md
    costs = json.loads((result.root / "tables" / "cost.json").read_text())
    assert set(costs["pretrain"]) == {"sp-unigram-500", "sp-unigram-1k", "sp-unigram-2k"}
    assert all(c["wall_seconds"] > 0 for c in costs["pretrain"].values())
    assert "sp-unigram-1k (no PT)" in costs["finetune"]["conll2003-ner"]
    assert (result.root / "pretrain" / "sp-unigram-1k" / "run" / "cost.json").is_file()
    if all(c["energy_kwh"] for c in costs["pretrain"].values()):  # codecarbon installed
        assert (result.root / "figures" / "score_vs_energy.png").stat().st_size > 1000
    # the exported models are ordinary Hugging Face ALBERT directories
    models = sorted((result.root / "pretrain").glob("*/run/final_model/config.json"))
    assert len(models) == 3


def test_report_numbers_come_from_the_tables(first_run):
    import json

    _, result = first_run
    t4 = json.loads((result.root / "tables" / "table4.json").read_text())
    md = result.report_markdown.read_text()
    for row in t4:
        assert f"{row['ne']['value']:.2f}" in md and f"{row['non_ne']['value']:.2f}" in md


def test_second_run_reuses_every_stage(first_run):
    config, first = first_run
    again = run_study(config, backend=PretrainBackend(), log=lambda m: None, progress=False)
    assert again.executed == [] and set(again.skipped) == set(first.executed) | set(first.skipped)


def test_changing_a_finetuning_setting_reruns_only_finetuning_and_analysis(first_run, tmp_path):
    """On a smaller plan (one seed), so that half the runs train again: a stage's key leaves the plan out, so each
    run the smaller plan keeps is the first run's, with the changed setting."""
    config, first = first_run
    copy = tmp_path / "copy"
    shutil.copytree(first.root, copy)
    finetune = dataclasses.replace(config.finetune, seeds=1, learning_rate=0.003)
    changed = dataclasses.replace(config, output_dir=str(copy), finetune=finetune)
    res = run_study(changed, backend=PretrainBackend(), log=lambda m: None, progress=False)
    kinds = {s.split("/")[0] for s in res.executed}
    assert kinds == {"finetune", "finetune-control", "analysis", "report"}
    assert all(s.startswith(("tokenizers", "pretrain", "control/")) for s in res.skipped)
