"""The ``multilingual`` study: its configuration, task wildcards, lenient reading, the tasks'
training text, and the whole study at toy size on the in-memory fake backend (a few seconds, no torch), with
the cross-language statistics checked against scipy."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from tests.study.fake_backend import FakeBackend
from tests.study.toy_multilingual import MASAKHANER, MULTICONER_TRAIN, toy_multilingual_config, write_toy_data
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.errors import DataFormatError
from tokstudy.study.across_languages import _row_spearman, cross_language_correlations, spearman_across
from tokstudy.study.config import TaskSpec, TokenizerSection, load_study_config
from tokstudy.study.language_rows import LanguageRow
from tokstudy.study.pipeline import run_study, section_key, task_key
from tokstudy.study.sources import Sources
from tokstudy.study.tasks import expand_tasks, task_splits


@pytest.fixture(scope="module")
def toy_data(tmp_path_factory):
    return write_toy_data(tmp_path_factory.mktemp("toy") / "data")


@pytest.fixture(scope="module")
def toy_study(toy_data, tmp_path_factory):
    """The multilingual study at toy size, run once on the fake backend."""
    config = toy_multilingual_config(toy_data, tmp_path_factory.mktemp("toy_out") / "multilingual")
    backend = FakeBackend()
    result = run_study(config, backend=backend, log=lambda m: None, progress=False)
    return config, backend, result


def _tables(result, name):
    return json.loads((result.root / "tables" / f"{name}.json").read_text(encoding="utf-8"))


def test_the_multilingual_configuration_loads_and_validates():
    config = load_study_config("multilingual")
    assert config.name == "multilingual" and config.jobs == 2
    assert config.tokenizers.add_task_text and config.pretrain.add_task_text and config.analysis.per_language
    assert len(config.tokenizers.vocab_sizes) == 3
    wild = [t for t in config.finetune.tasks if t.is_wildcard]
    assert {t.dataset for t in wild} == {"masakhaner2", "multiconer2022"}
    assert all(t.max_train and t.max_eval for t in config.finetune.tasks)  # every task is capped to fit the hour
    assert next(t for t in wild if t.dataset == "masakhaner2").lenient is True
    assert {(t.dataset, t.task) for t in config.finetune.tasks if not t.is_wildcard} == {
        ("massive", "ner"),
        ("massive", "classification"),
    }
    assert "masakhaner2:*:test" in config.analysis.datasets


def test_a_task_names_its_language_in_the_dataset_or_apart():
    assert TaskSpec("masakhaner2:yor") == TaskSpec("masakhaner2", language="yor")
    assert TaskSpec("masakhaner2:*").is_wildcard and not TaskSpec("masakhaner2:yor").is_wildcard
    assert TaskSpec("hf:wikiann@ru").dataset == "hf:wikiann@ru"  # a Hugging Face name keeps its colon
    with pytest.raises(ValueError, match="names language 'yor'; language is 'hau'"):
        TaskSpec("masakhaner2:yor", language="hau")
    with pytest.raises(ValueError, match="NAME or NAME:LANGUAGE"):
        TaskSpec("masakhaner2:yor:test")


def test_the_wildcard_in_a_task_list_expands_to_exactly_the_languages_present(toy_data):
    tasks = expand_tasks(
        [TaskSpec("masakhaner2:*", max_train=5, lenient=True), TaskSpec("multiconer2022:*"), TaskSpec("massive")],
        data_dir=toy_data,
    )
    present = sorted(p.name.split("_")[0] for p in (toy_data / "masakhaner2").glob("*_train.txt"))
    assert [t.language for t in tasks if t.dataset == "masakhaner2"] == present == sorted(MASAKHANER)
    # MultiCoNER's en has a dev split only: no training split, no task
    assert [t.language for t in tasks if t.dataset == "multiconer2022"] == list(MULTICONER_TRAIN)
    assert all(t.max_train == 5 and t.lenient for t in tasks if t.dataset == "masakhaner2")
    assert tasks[-1] == TaskSpec("massive")
    with pytest.raises(ValueError, match=r"masakhaner2-yor-ner.*more than once"):
        expand_tasks([TaskSpec("masakhaner2:*"), TaskSpec("masakhaner2:yor")], data_dir=toy_data)


def test_the_wildcard_on_the_real_corpora(shared_data):
    from tests.conftest import corpus_path

    for name in ("masakhaner2", "multiconer2022"):
        corpus_path(name)
    tasks = expand_tasks(load_study_config("multilingual").finetune.tasks, data_dir=shared_data)
    by = lambda d: sorted(t.language for t in tasks if t.dataset == d)  # noqa: E731
    assert by("masakhaner2") == sorted(p.name.split("_")[0] for p in (shared_data / "masakhaner2").glob("*_train*"))
    assert len(by("masakhaner2")) == 20
    assert by("multiconer2022") == ["de", "en", "es", "ko", "nl", "tr"]
    assert len(tasks) == 28


def test_a_malformed_line_is_an_error_unless_the_task_is_lenient(toy_data):
    sources = Sources(toy_data, _real={"masakhaner2", "multiconer2022"})
    with pytest.raises(DataFormatError, match=r"xho_train\.txt.*line \d+"):
        task_splits(TaskSpec("masakhaner2:xho"), sources)
    splits, read = task_splits(TaskSpec("masakhaner2:xho", lenient=True), sources)
    assert read["train"]["skipped_lines"] == 2 and read["train"]["sentences"] == len(splits.train)
    # MultiCoNER has no test split: scored on dev, and the backend holds out part of train (dev is None)
    splits, read = task_splits(TaskSpec("multiconer2022:de", max_eval=7), sources)
    assert splits.dev is None and read["test"] == {
        "split": "dev",
        "sentences": 7,
        "available": 20,
        "skipped_lines": 0,
        "repaired": 0,
    }


def test_settings_added_at_their_default_keep_the_stage_keys_of_earlier_studies():
    assert "add_task_text" not in section_key(TokenizerSection())
    assert section_key(TokenizerSection(add_task_text=True))["add_task_text"] is True
    assert "lenient" not in task_key(TaskSpec("conll2003")) and task_key(TaskSpec("conll2003", lenient=True))["lenient"]


def test_the_multilingual_study_runs_at_toy_size(toy_study):
    config, backend, result = toy_study
    tasks = [c for c in backend.calls if c[0] == "finetune"]
    n_tasks = len(MASAKHANER) + len(MULTICONER_TRAIN) + 2
    assert len(tasks) == 3 * n_tasks  # 3 vocabularies, 1 seed, no control
    md = result.report_markdown.read_text(encoding="utf-8")
    for heading in ("## Training text", "## What was cut to fit the time", "## Languages: segmentation against F1"):
        assert heading in md, heading
    assert "masakhaner2-xho-ner train: 2 malformed lines skipped" in md
    assert "were added to the vocabularies' sample and the pre-training corpus" in md
    assert "1 seed per model and task (the paper: 10)" in md and "No no-pre-training control" in md
    assert "`masakhaner2` (4 tasks): training sentences 40 of 60 (cut)" in md
    assert "- Across languages, the more a language's NE words are segmented, the lower its F1" in md
    assert "- F1 rises from the smallest vocabulary to the largest, language by language:" in md
    assert "masakhaner2-hau-ner: F1 rises with vocabulary size" not in md  # one finding over languages instead
    rows = _tables(result, "languages")
    assert len(rows) == 3 * (n_tasks - 1)  # every NER task (one per language) under every tokenizer
    assert {r["language"] for r in rows} == {*MASAKHANER, *MULTICONER_TRAIN, "en-US"}
    assert all(r["ne"] > 0 and r["all"] > 0 and not math.isnan(r["r"]) for r in rows)
    gains = _tables(result, "vocabulary_gain")
    assert [g["gain"] for g in gains] == sorted((g["gain"] for g in gains), reverse=True)
    # the task text went into the vocabularies' sample: its files are among the tokenizer's inputs
    manifest = json.loads(next((result.root / "tokenizers").glob("*/training.json")).read_text())
    assert any("task_text/masakhaner2/xho.txt" in p for p in manifest["config"]["inputs"])
    text = (result.root / "task_text" / "masakhaner2" / "xho.txt").read_text(encoding="utf-8")
    assert text.count("\n\n") == 60 and "malformed" not in text  # the whole training split, bad lines skipped
    # MultiCoNER was scored on its dev split; its predictions are published under the split they cover
    assert {d["task"]: d["test"]["split"] for d in _tables(result, "task_data")}["multiconer2022-de-ner"] == "dev"
    assert (result.root / "predictions" / "sp-unigram-120" / "masakhaner2_yor_test.tsv").is_file()
    assert (result.root / "predictions" / "sp-unigram-120" / "multiconer2022_de_dev.tsv").is_file()
    # r under every protocol of the paper's correlation; its default protocol is the word-level r of correlation.json
    assert "## Which protocol gives the paper's r = 0.44?" in md and "Nearest the paper's r = 0.44" in md
    protocols = json.loads((result.root / "tables" / "r_protocols.json").read_text(encoding="utf-8"))
    default = {
        (p["tokenizer"], p["model"]): p["r"]
        for p in protocols
        if (p["unit"], p["measure"], p["error"], p["lone_boundary"]) == ("words", "n_pieces", "label", "counted")
    }
    word_level = {(c["tokenizer"], c["model"]): c["all"]["r"] for c in _tables(result, "correlation")}
    assert default.keys() == word_level.keys() and default == pytest.approx(word_level, abs=1e-9)
    assert {p["lone_boundary"] for p in protocols} == {"counted", "dropped"}


def test_a_finished_multilingual_study_writes_the_same_report_again(toy_study, tmp_path):
    """``tokstudy study --report-only``: from the tables and config.json (its tasks still wildcards) alone."""
    import shutil

    from tokstudy.study.report_sections import rerender_study_report

    _, _, result = toy_study
    copy = tmp_path / "copy"
    shutil.copytree(result.root, copy)
    tasks = json.loads((copy / "config.json").read_text())["finetune"]["tasks"]
    assert tasks[0]["language"] == "*"  # the configuration as written
    paths = rerender_study_report(copy)
    assert paths["markdown"].read_text(encoding="utf-8") == result.report_markdown.read_text(encoding="utf-8")


def test_each_languages_segmentation_is_table_4_of_its_scored_sentences(toy_study):
    """NE words and all words of each language: Table 4's figures of the dataset, the sentences it was scored on."""
    from tokstudy.analysis.stats import additional_segmentation_by
    from tokstudy.study.language_analysis import scored_table, segmentation_by_language
    from tokstudy.study.tasks import expand_tasks
    from tokstudy.tokenization.loading import load_tokenizer

    config, _, result = toy_study
    sources = Sources(Path(config.data_dir), _real={"masakhaner2"})
    tasks = expand_tasks([t for t in config.finetune.tasks if t.dataset == "masakhaner2"], data_dir=config.data_dir)
    segmenters = [load_tokenizer(d, name=d.name) for d in sorted((result.root / "tokenizers").glob("sp-*"))]
    scored = scored_table(tasks, segmenters, sources)
    assert [t.test for t in scored.tasks] == [f"masakhaner2:{lang}:test" for lang in MASAKHANER]
    seg = segmentation_by_language(scored.table, [s.name for s in segmenters], BootstrapSettings(0, seed=0))
    rows = {(r["tokenizer"], r["task"]): r for r in _tables(result, "languages")}
    for s in segmenters:
        for subset in ("ne", "all"):
            want = additional_segmentation_by(
                scored.table, s.name, "dataset", subset=subset, bootstrap=BootstrapSettings(0)
            )
            for label, est in want.groups.items():
                assert getattr(seg[s.name][label], subset).value == pytest.approx(est.value)
                task = f"masakhaner2-{label.split(':')[1]}-ner"
                assert rows[(s.name, task)][subset] == pytest.approx(est.value)
        assert {v.script for v in seg[s.name].values()} == {"Latin"}


def test_the_cross_language_spearman_equals_scipys_on_the_same_numbers(toy_study):
    _, _, result = toy_study
    rows, cross = _tables(result, "languages"), _tables(result, "cross_language")
    assert cross == json.loads(json.dumps(cross))  # plain JSON
    for c in cross:
        mine = [r for r in rows if r["tokenizer"] == c["tokenizer"] and (c["group"] in ("all", r["dataset"]))]
        x, y = [r[c["measure"]] for r in mine], [r["f1"] for r in mine]
        want = scipy.stats.spearmanr(x, y)
        assert c["n"] == len(mine)
        assert c["rho"] == pytest.approx(want.statistic, abs=1e-12) and c["p_value"] == pytest.approx(want.pvalue)
    typed = [LanguageRow.from_json(r) for r in rows]
    again = cross_language_correlations(
        typed,
        ["sp-unigram-120", "sp-unigram-160", "sp-unigram-200"],
        BootstrapSettings(n_resamples=40),
    )
    assert [a.correlation.rho for a in again] == pytest.approx([c["rho"] for c in cross], nan_ok=True)


def test_spearman_across_languages_equals_scipy_with_its_bootstrap_interval():
    rng = np.random.default_rng(3)
    for n in (3, 7, 20):
        x, y = rng.normal(size=n), rng.normal(size=n)
        x[: n // 3] = x[0]  # ties
        rc = spearman_across(x, y, BootstrapSettings(n_resamples=300, seed=1))
        want = scipy.stats.spearmanr(x, y)
        assert (rc.rho, rc.p_value) == pytest.approx((want.statistic, want.pvalue))
        assert -1 <= rc.low <= rc.high <= 1 and rc.n == n and rc.n_resamples == 300
    # each resample's rho is scipy's on the languages drawn (ties and repeats averaged the same way)
    idx = rng.integers(0, 9, size=(50, 9))
    x, y = rng.integers(0, 4, size=9).astype(float), rng.normal(size=9)
    got = _row_spearman(x[idx], y[idx])
    for k in range(50):
        want = scipy.stats.spearmanr(x[idx[k]], y[idx[k]]).statistic
        assert (math.isnan(got[k]) and math.isnan(want)) or got[k] == pytest.approx(want)
    # a perfect ordering gives rho -1 with a degenerate interval; too few languages give none
    perfect = spearman_across([1, 2, 3, 4, 5], [50, 40, 30, 20, 10], BootstrapSettings(n_resamples=200))
    assert perfect.rho == pytest.approx(-1) and perfect.high == pytest.approx(-1)
    assert math.isnan(spearman_across([1, 2], [2, 1]).rho)
    assert re.match(r"RankCorrelation\(rho=nan", repr(spearman_across([1, 1, 1], [1, 2, 3])))


@pytest.mark.parametrize(
    "module",
    [
        "tokstudy.study.tasks",
        "tokstudy.study.stage_keys",
        "tokstudy.study.across_languages",
        "tokstudy.study.language_sections",
    ],
)
def test_the_docstring_examples_run(module):
    from tests.fixtures_doctest import assert_examples_pass

    assert_examples_pass(module)


@pytest.mark.slow
def test_the_multilingual_study_trains_with_the_pretrainer_at_toy_size(toy_data, tmp_path):
    """The real trainer at toy size (a few pre-training steps, one epoch, the smallest and the largest vocabulary
    only): the pre-training corpus holds the tasks' text under their languages, and MultiCoNER fine-tunes with a
    dev split held out of train."""
    import dataclasses

    from pretrain.study_backend import PretrainBackend

    config = toy_multilingual_config(toy_data, tmp_path / "multilingual")
    sizes = config.tokenizers.vocab_sizes
    tokenizers = dataclasses.replace(config.tokenizers, vocab_sizes=(sizes[0], sizes[-1]))
    config = dataclasses.replace(config, tokenizers=tokenizers)
    pretrain = dataclasses.replace(
        config.pretrain, total_steps=6, max_examples=300, batch_size=16, warmup_steps=1, max_seq_length=64
    )
    config = dataclasses.replace(
        config, pretrain=pretrain, finetune=dataclasses.replace(config.finetune, epochs=1, max_length=64)
    )
    result = run_study(config, backend=PretrainBackend(cuda=False), log=lambda m: None, progress=False)
    meta = json.loads((result.root / "pretrain" / "sp-unigram-120" / "examples" / "meta.json").read_text())
    languages = {i["language"] for i in meta["inputs"] if "task_text" in i["file"]}
    assert languages == {*MASAKHANER, *MULTICONER_TRAIN, "en-US"}
    metrics = json.loads(
        next(
            (result.root / "finetune" / "sp-unigram-120" / "multiconer2022-de-ner").glob("seed0/**/metrics.json")
        ).read_text()
    )
    # 40 training sentences (the toy cap), 5 % of them held out for early stopping; scored on the 20 dev sentences
    assert (metrics["sizes"]["train"], metrics["sizes"]["dev"], metrics["sizes"]["test"]) == (38, 2, 20)
    assert "## Languages: segmentation against F1" in result.report_markdown.read_text(encoding="utf-8")
