"""The study's analysis and report stages on real data, without training (two small SentencePiece models,
no fine-tuning runs): its tables are the ones ``tokstudy stats`` computes, in the report package's schema,
and its report renders like markdown-it-py's reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.conftest import corpus_path
from tokstudy.study.config import load_study_config

TINY = Path(__file__).with_name("tiny_study.yaml")
TOKENIZERS = (("sp-unigram-300", 300), ("sp-unigram-900", 900))  # the trainer's directory names


def _train_tokenizers(out: Path) -> dict[str, Path]:
    """Unigram SentencePiece models on English and Russian raw text (what the analysis datasets hold), trained
    by the library's trainer as the study trains its own."""
    import gzip

    from tokstudy.tokenization.training import TokenizerTrainingConfig, train_one

    files = [corpus_path("raw_text") / f"{lang}.txt.gz" for lang in ("en", "ru")]
    sample = []
    for f in files:
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            sample += [line.strip() for _, line in zip(range(1500), fh) if line.strip()]
    config = TokenizerTrainingConfig(
        inputs=tuple(files), output_dir=out, vocab_sizes=tuple(v for _, v in TOKENIZERS), character_coverage=1.0
    )
    dirs = {name: train_one(sample, config, v).path for name, v in TOKENIZERS}
    assert all(d.name == name for name, d in dirs.items())  # `tokstudy stats -t DIR` names it so too
    return dirs


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from tokstudy.study.analysis_stage import analyse
    from tokstudy.study.outcomes import TOKENIZERS as TOKENIZERS_STAGE
    from tokstudy.study.outcomes import BuiltTokenizer, TokenizersBuilt
    from tokstudy.study.report_sections import study_report
    from tokstudy.study.sources import resolve_sources

    for name in ("conll2003", "wikiann", "xquad_parallel", "raw_text"):
        corpus_path(name)  # skips with the reason when the corpus is absent
    root = tmp_path_factory.mktemp("study")
    dirs = _train_tokenizers(root / "tokenizers")
    config = load_study_config(TINY, output_dir=str(root))
    sources = resolve_sources({"conll2003", "wikiann", "xquad_parallel"}, root, allow_sample=False)
    built = TokenizersBuilt(tuple(BuiltTokenizer(n, v, str(dirs[n].relative_to(root)), 0) for n, v in TOKENIZERS))
    written = analyse(
        root / ".work", {TOKENIZERS_STAGE: built}, root=root, runs=(), config=config, sources=sources, progress=False
    )
    record = written.to_json()
    paths = study_report(root, written, config, sources)
    return root, dirs, config, record, paths


def test_table4_and_summary_are_what_tokstudy_stats_gives(study, tmp_path):
    from tokstudy.cli import main

    root, dirs, config, record, _ = study
    assert record["table4_dataset"] == "conll2003:test"
    out = tmp_path / "stats.json"
    args = ["stats", "-d", "conll2003:test", "--no-progress", "--json", str(out)]
    args += [a for d in dirs.values() for a in ("-t", str(d))]
    args += ["--resamples", str(config.analysis.bootstrap), "--seed", str(config.analysis.seed)]
    assert main(args) == 0
    stats = json.loads(out.read_text())
    table4 = json.loads((root / "tables" / "table4.json").read_text())
    assert table4 == stats["table4"]
    assert json.loads((root / "tables" / "summary.json").read_text()) == stats["summary"]
    assert [r["tokenizer"] for r in table4] == list(dirs)
    assert table4[0]["ne"]["n_words"] > 5000  # the whole CoNLL-2003 test split, not a cut


def test_breakdowns_cover_ne_and_non_ne_of_every_dataset(study):
    root = study[0]
    by_language = json.loads((root / "tables" / "by_language.json").read_text())
    assert {(g["tokenizer"], g["subset"]) for g in by_language} == {
        (t, s) for t, _ in TOKENIZERS for s in ("ne", "non_ne")
    }
    assert all(set(g["groups"]) == {"en", "ru"} for g in by_language)
    by_dataset = json.loads((root / "tables" / "by_dataset.json").read_text())
    assert set(by_dataset[0]["groups"]) == {"conll2003:test", "wikiann:test"}
    # the first dataset's NE figure over the whole table's sentences equals Table 4's point value
    table4 = json.loads((root / "tables" / "table4.json").read_text())
    ne = next(g for g in by_dataset if g["subset"] == "ne" and g["tokenizer"] == TOKENIZERS[0][0])
    assert ne["groups"]["conll2003:test"]["value"] == pytest.approx(table4[0]["ne"]["value"], rel=1e-12)


def test_report_numbers_come_from_the_tables(study):
    root, *_, paths = study
    md = paths["markdown"].read_text(encoding="utf-8")
    for row in json.loads((root / "tables" / "table4.json").read_text()):
        for subset in ("ne", "non_ne", "all"):
            e = row[subset]
            assert f"{e['value']:.2f} [{e['low']:.2f}, {e['high']:.2f}]" in md
    for heading in ("## Findings", "## Table 4", "## Additional segmentation by language", "## Fertility and parity"):
        assert heading in md, heading
    assert "NE words are more segmented than other words at every vocabulary size:" in md


def test_study_report_renders_like_markdown_it_py(study):
    *_, paths = study
    md = paths["markdown"].read_text(encoding="utf-8")
    body = MarkdownIt("commonmark").enable("table").render(md)
    assert body in paths["html"].read_text(encoding="utf-8")
    for element in ("<table>", "<td>", "<a href=", "<img src=", "<li>", "<h2>", "<code>"):
        assert element in body, element
