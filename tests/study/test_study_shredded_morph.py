"""Issue 36 in the study's report: the shredded frequent words of every tokenizer (always), the morpheme boundaries
when ``analysis.gold_segmentations`` names gold files, and a folder analysed before either (no ``shredded`` table)
still re-rendered, its section saying the table is absent."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from tokstudy.analysis.morph import morph_table
from tokstudy.data.segmentations import read_segmentations
from tokstudy.report.assemble import MORPH_TITLE, SHREDDED_ABSENT, SHREDDED_TITLE
from tokstudy.study.config import AnalysisSection, StudyConfig, load_study_config
from tokstudy.study.pipeline import section_key
from tokstudy.tokenization.loading import load_tokenizer

TINY = Path(__file__).with_name("tiny_study.yaml")


def _gold(folder: Path) -> tuple[Path, Path]:
    """A MorphScore CSV and a SIGMORPHON 2022 TSV of a few English words (one the tokenizer may keep whole)."""
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / "en_morph.csv"
    csv.write_text("full_word,pt1,rest\nplayed,play,ed\nhouses,house,s\nunhappy,un,happy\nthe,th,e\n", encoding="utf-8")
    tsv = folder / "eng.word.test.tsv"
    tsv.write_text("walkers\twalk @@er @@s\t110\nreplayed\tre @@play @@ed\t101\n", encoding="utf-8")
    return csv, tsv


def _tiny(tmp_path: Path, **analysis) -> StudyConfig:
    """The tiny study on generated sample data, one vocabulary, one seed, one task, no control nor parity."""
    empty = tmp_path / "no_corpora"
    empty.mkdir(exist_ok=True)
    config = load_study_config(TINY, output_dir=str(tmp_path / "out"), data_dir=str(empty))
    ft = dataclasses.replace(config.finetune, tasks=config.finetune.tasks[:1], seeds=1, no_pretraining_control=False)
    tokenizers = dataclasses.replace(config.tokenizers, vocab_sizes=(500,))
    section = dataclasses.replace(config.analysis, datasets=("conll2003:test",), parity_corpus=None, **analysis)
    return dataclasses.replace(config, finetune=ft, tokenizers=tokenizers, analysis=section)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from tests.study.fake_backend import FakeBackend
    from tokstudy.study.pipeline import run_study

    tmp = tmp_path_factory.mktemp("shredded_morph")
    csv, tsv = _gold(tmp / "gold")
    config = _tiny(tmp, gold_segmentations=(str(csv), f"{tsv}@en"))
    return run_study(config, backend=FakeBackend(), log=lambda m: None, progress=False), (csv, tsv)


def _sample_words(root: Path) -> list[str]:
    """Every word of the analysis dataset, as the study read it (the sample's CoNLL-2003 test split)."""
    from tokstudy.study.sources import resolve_sources

    config = load_study_config(root / "config.json")
    sources = resolve_sources({"conll2003"}, root, data_dir=config.data_dir, allow_sample=True)
    return [w for s in sources.dataset("conll2003", "test").sentences for w in s.words]


def test_the_shredded_table_is_a_plain_recount_of_the_encoded_words(study):
    result, _ = study
    data = json.loads((result.root / "tables" / "shredded.json").read_text(encoding="utf-8"))
    segmenter = load_tokenizer(result.root / "tokenizers" / "sp-unigram-500")
    counts = Counter(_sample_words(result.root))
    pieces = {w: segmenter.segment([w]).pieces_of(0) for w in counts}  # each word encoded alone, as in the table
    shredded = {w: n for w, n in counts.items() if len(pieces[w]) >= 3}
    [summary] = data["summary"]
    assert summary["language"] == "all" and summary["tokenizer"] == "sp-unigram-500" and summary["K"] == 3
    assert summary["words"] == sum(counts.values())
    assert summary["distinct shredded words"] == len(shredded)
    share = sum(n * len(pieces[w]) for w, n in shredded.items()) / sum(n * len(pieces[w]) for w, n in counts.items())
    assert summary["token share %"] == pytest.approx(100 * share, abs=0.005)
    top = sorted(shredded, key=lambda w: (-shredded[w], -len(pieces[w]), w))[:5]
    assert [r["word"] for r in data["rankings"][:5]] == top
    assert [r["frequency"] for r in data["rankings"][:5]] == [shredded[w] for w in top]


def test_the_report_shows_both_sections_and_morph_is_the_apis(study):
    result, (csv, tsv) = study
    report = result.report_markdown.read_text(encoding="utf-8")
    assert f"## {SHREDDED_TITLE}" in report and f"## {MORPH_TITLE}" in report
    assert "[shredded.md](shredded.md)" in report and "[morph.md](morph.md)" in report
    rows = json.loads((result.root / "tables" / "morph.json").read_text(encoding="utf-8"))
    segmenter = load_tokenizer(result.root / "tokenizers" / "sp-unigram-500", count_lone_boundary=True)
    golds = [read_segmentations(csv), read_segmentations(tsv, language="en")]
    want = morph_table(golds, [segmenter])
    assert [(Path(r["source"]).name, r["format"]) for r in rows] == [(csv.name, "morphscore"), (tsv.name, "sigmorphon")]
    assert rows[1]["language"] == "en" and len(rows) == len(want)
    for got, w in zip(rows, want):
        b = got["boundaries"]
        assert (b["gold"], b["true_positive"]) == (w.boundaries.gold, w.boundaries.true_positive)
        assert (got["morphscore"] is None) == (w.morphscore is None)
    assert rows[0]["morphscore"]["n_scored"] == want[0].morphscore.n_scored


def test_a_folder_analysed_before_the_section_says_it_is_absent(study, tmp_path):
    import shutil

    from tokstudy.study.report_sections import rerender_study_report

    result, _ = study
    old = tmp_path / "old"
    shutil.copytree(result.root, old, ignore=shutil.ignore_patterns("shredded.*", "morph.*", ".stages"))
    paths = rerender_study_report(old, data_dir=tmp_path)
    report = paths["markdown"].read_text(encoding="utf-8")
    assert f"## {SHREDDED_TITLE}\n\n{SHREDDED_ABSENT}" in report
    assert f"## {MORPH_TITLE}" not in report  # no gold files' table: no section (the configuration is not re-run)


def test_gold_segmentations_are_checked_and_keep_the_default_key(tmp_path):
    csv, tsv = _gold(tmp_path)
    for name in ("demo", "cpu", "multilingual"):
        section = load_study_config(name).analysis
        assert section.gold_segmentations == () and "gold_segmentations" not in section_key(section)
    section = AnalysisSection(gold_segmentations=(str(csv), f"{tsv}@en"))
    assert section_key(section)["gold_segmentations"] == (str(csv), f"{tsv}@en")
    with pytest.raises(ValueError, match=r"no file .*missing\.csv"):
        AnalysisSection(gold_segmentations=(str(tmp_path / "missing.csv"),))
    (tmp_path / "gold.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match=r"gold\.json.*expected a MorphScore \.csv or a SIGMORPHON"):
        AnalysisSection(gold_segmentations=(str(tmp_path / "gold.json"),))


def test_a_yaml_names_its_gold_files(tmp_path):
    csv, _ = _gold(tmp_path)
    path = tmp_path / "study.yaml"
    path.write_text(f"name: g\nanalysis:\n  gold_segmentations: ['{csv}@en']\n", encoding="utf-8")
    assert load_study_config(path).analysis.gold_segmentations == (f"{csv}@en",)


def test_a_multilingual_study_ranks_per_language(tmp_path):
    """The toy multilingual study: one ranking per (language, tokenizer), each a plain recount of that language's
    words of the analysis datasets, and one side-by-side table per language."""
    from tests.study.fake_backend import FakeBackend
    from tests.study.toy_multilingual import toy_multilingual_config, write_toy_data
    from tokstudy.study.analysis_stage import _load_analysis_datasets
    from tokstudy.study.pipeline import run_study
    from tokstudy.study.sources import resolve_sources

    config = toy_multilingual_config(write_toy_data(tmp_path / "data"), tmp_path / "out")
    ft = dataclasses.replace(config.finetune, tasks=config.finetune.tasks[:1])
    result = run_study(
        dataclasses.replace(config, finetune=ft), backend=FakeBackend(), log=lambda m: None, progress=False
    )
    data = json.loads((result.root / "tables" / "shredded.json").read_text(encoding="utf-8"))
    sources = resolve_sources(
        {spec.split(":")[0] for spec in config.analysis.datasets},
        result.root,
        data_dir=config.data_dir,
        allow_sample=False,
    )
    words: dict[str, Counter] = {}
    for ds in _load_analysis_datasets(config, sources)[0]:
        words.setdefault(ds.language, Counter()).update(w for s in ds.sentences for w in s.words)
    tokenizers = sorted({r["tokenizer"] for r in data["summary"]})
    assert len(tokenizers) == 3 and len(words) > 1
    assert {(r["language"], r["tokenizer"]) for r in data["summary"]} == {(l, t) for l in words for t in tokenizers}
    assert sorted(c["language"] for c in data["comparisons"]) == sorted(words)
    name = tokenizers[0]
    segmenter = load_tokenizer(result.root / "tokenizers" / name)
    for row in (r for r in data["summary"] if r["tokenizer"] == name):
        counts = words[row["language"]]
        shredded = [w for w in counts if len(segmenter.segment([w]).pieces_of(0)) >= 3]
        assert (row["words"], row["distinct shredded words"]) == (sum(counts.values()), len(shredded)), row
    assert "## Shredded frequent words" in result.report_markdown.read_text(encoding="utf-8")
