"""`hf:` sources go through datasets.load_dataset; tested on a local dataset folder (no network)."""

from __future__ import annotations

import pytest

from tokstudy.data.hub import load_hf_dataset, parse_hf_spec
from tokstudy.errors import DataFormatError, DataNotFoundError

datasets = pytest.importorskip("datasets", reason="the optional `datasets` package (tokstudy[hub]) is not installed")

NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


@pytest.fixture
def local_hf_dataset(tmp_path):
    feats = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "ner_tags": datasets.Sequence(datasets.ClassLabel(names=NAMES)),
        }
    )
    rows = {
        "tokens": [["Anna", "Karenina", "lives", "in", "Moscow"], [], ["Hi"]],
        "ner_tags": [[1, 2, 0, 0, 3], [], [0]],
    }
    folder = tmp_path / "my_ner"
    folder.mkdir()
    datasets.Dataset.from_dict(rows, features=feats).to_parquet(str(folder / "test.parquet"))
    return folder


def test_parse_specs():
    assert parse_hf_spec("hf:wikiann@ru:test") == ("wikiann", "ru", "test")
    assert parse_hf_spec("hf:org/name") == ("org/name", None, "test")
    with pytest.raises(ValueError):
        parse_hf_spec("conll2003:test")


def test_local_folder_loads_with_class_names(local_hf_dataset):
    ds = load_hf_dataset(str(local_hf_dataset), "test", language="en")
    assert len(ds) == 2  # the empty row is skipped
    assert ds[0].words == ("Anna", "Karenina", "lives", "in", "Moscow")
    assert ds[0].tags == ("B-PER", "I-PER", "O", "O", "B-LOC")
    assert ds.n_entities == 2 and ds.language == "en"


def test_cli_spec_reads_hf_sources(local_hf_dataset):
    from tokstudy.inputs import load_dataset_spec

    ds = load_dataset_spec(f"hf:{local_hf_dataset}:test")
    assert ds.n_words == 6 and ds.split == "test"


def test_missing_source_names_itself(tmp_path):
    with pytest.raises(DataNotFoundError, match=r"hf:.*nothing_here:test: could not load"):
        load_hf_dataset(str(tmp_path / "nothing_here"), "test")


def test_missing_columns_are_named(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    datasets.Dataset.from_dict({"text": ["a b"]}).to_parquet(str(folder / "test.parquet"))
    with pytest.raises(DataFormatError, match="no tokens column"):
        load_hf_dataset(str(folder), "test")


def test_study_sources_accept_hf_names(local_hf_dataset, tmp_path):
    from tokstudy.study.config import AnalysisSection, StudyConfig
    from tokstudy.study.pipeline import _needed_corpora
    from tokstudy.study.sources import resolve_sources

    cfg = StudyConfig(analysis=AnalysisSection(datasets=(f"hf:{local_hf_dataset}:test",), parity_corpus=None))
    assert not any(n.startswith("hf") for n in _needed_corpora(cfg))
    sources = resolve_sources(set(), tmp_path)
    assert sources.has_dataset(f"hf:{local_hf_dataset}")
    ds = sources.dataset(f"hf:{local_hf_dataset}", "test", limit=1)
    assert len(ds) == 1 and ds[0].tags[0] == "B-PER"
