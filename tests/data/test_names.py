"""Dataset names and the language wildcard: ``masakhaner2:*:test`` expands to exactly the files present, in
the Python API (:mod:`tokstudy.data.names`), through ``load_datasets`` (what the CLI and the study read) and
on the command line; a missing file says what is there."""

from __future__ import annotations

import gzip
import json
import string
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tokstudy.cli import main
from tokstudy.data.names import expand_dataset_name, load_datasets_named
from tokstudy.data.registry import (
    MASAKHANER2_LANGUAGES,
    MULTICONER_LANGUAGES,
    available_datasets,
    available_languages,
    has_files,
    load_dataset,
)
from tokstudy.errors import DataNotFoundError, UsageError
from tokstudy.inputs import load_datasets


def present(folder: Path, pattern: str) -> set[tuple[str, str]]:
    """``(language, split)`` of the files in ``folder`` matching ``pattern`` (``<lang>_<split>.<ext>[.gz]``)."""
    return {tuple(p.name.split(".")[0].split("_")) for p in folder.glob(pattern)}


@pytest.fixture
def small_root(tmp_path) -> Path:
    """A data location holding 3 MasakhaNER files (one gzip'd), 2 MultiCoNER files and a MASSIVE file."""
    mas = tmp_path / "masakhaner2"
    mas.mkdir()
    (mas / "yor_test.txt").write_text("Abẹ́rẹ́ B-PER\nlọ O\n", encoding="utf-8")
    (mas / "hau_test.txt.gz").write_bytes(gzip.compress("Kano B-LOC\nne O\n".encode()))
    (mas / "hau_dev.txt").write_text("Abuja B-LOC\n", encoding="utf-8")
    mc = tmp_path / "multiconer2022"
    mc.mkdir()
    for name in ("zh_dev.conll", "de_train.conll"):
        (mc / name).write_text("# id 1\tdomain=dev\nbob _ _ B-PER\n", encoding="utf-8")
    (tmp_path / "massive").mkdir()
    record = {"intent": "alarm_set", "annot_utt": "wake me at [time : five]", "locale": "en-US"}
    lines = [json.dumps({**record, "partition": p}) for p in ("train", "test")]
    (tmp_path / "massive" / "en-US.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_the_wildcard_expands_to_exactly_the_files_present(small_root):
    assert expand_dataset_name("masakhaner2:*:test", data_dir=small_root) == [
        "masakhaner2:hau:test",
        "masakhaner2:yor:test",
    ]
    assert expand_dataset_name("masakhaner2:hau:*", data_dir=small_root) == [
        "masakhaner2:hau:dev",
        "masakhaner2:hau:test",
    ]
    assert expand_dataset_name("masakhaner2:*:*", data_dir=small_root) == [
        "masakhaner2:hau:dev",
        "masakhaner2:hau:test",
        "masakhaner2:yor:test",
    ]
    assert expand_dataset_name("multiconer2022:*:dev", data_dir=small_root) == ["multiconer2022:zh:dev"]
    assert expand_dataset_name("multiconer2022:*:valid", data_dir=small_root) == ["multiconer2022:zh:dev"]
    # one file holds MASSIVE's partitions: every split is there
    assert expand_dataset_name("massive:*", data_dir=small_root) == ["massive:train", "massive:dev", "massive:test"]
    assert expand_dataset_name("conll2003:test") == ["conll2003:test"]  # no wildcard: as it is, unchecked


def test_wildcard_mistakes_are_named(small_root):
    with pytest.raises(DataNotFoundError, match=r"'masakhaner2:\*:train' matches no file at .*present: hau:dev, "):
        expand_dataset_name("masakhaner2:*:train", data_dir=small_root)
    with pytest.raises(UsageError, match=r"several languages; write masakhaner2:\*:\* for all"):
        expand_dataset_name("masakhaner2:*", data_dir=small_root)
    with pytest.raises(UsageError, match="has no split 'test'; expected one of"):
        expand_dataset_name("multiconer2022:*:test", data_dir=small_root)
    with pytest.raises(UsageError, match="has no language 'xx'"):
        expand_dataset_name("masakhaner2:xx:*", data_dir=small_root)
    with pytest.raises(DataNotFoundError, match="corpus 'wikiann' not found"):
        expand_dataset_name("wikiann:*:test", data_dir=small_root)


def test_presence_and_loading_from_a_small_root(small_root):
    assert available_languages("masakhaner2", "test", data_dir=small_root) == ["hau", "yor"]
    assert has_files("massive", "dev", data_dir=small_root) and not has_files(
        "multiconer2022", "dev", "de", data_dir=small_root
    )
    assert ("multiconer2022", "de", "train") in available_datasets(data_dir=small_root)
    assert ("multiconer2022", "de", "dev") not in available_datasets(data_dir=small_root)
    with pytest.raises(
        DataNotFoundError, match=r"de_dev\.conll\[\.gz\]: file not found; multiconer2022 dev is there in zh"
    ):
        load_dataset("multiconer2022", "dev", language="de", data_dir=small_root)
    datasets = load_datasets_named("masakhaner2:*:test", data_dir=small_root)
    assert [(d.language, d.split, d.n_words) for d in datasets] == [("hau", "test", 2), ("yor", "test", 2)]


def test_load_datasets_expands_for_the_cli_and_study(small_root):
    datasets = load_datasets(["masakhaner2:*:test", "multiconer2022:*:*"], data_dir=small_root)
    assert [(d.name, d.language, d.split) for d in datasets] == [
        ("masakhaner2", "hau", "test"),
        ("masakhaner2", "yor", "test"),
        ("multiconer2022", "de", "train"),
        ("multiconer2022", "zh", "dev"),
    ]
    with pytest.raises(DataNotFoundError, match=r"nope/\*\.conll: dataset file not found"):
        load_datasets(["nope/*.conll"], data_dir=small_root)  # a quoted file pattern is no registry name


def test_the_command_line_takes_the_wildcard(small_root, tmp_path, capsys, monkeypatch):
    chars = string.ascii_letters + "ẹ́ọ"
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
    argv = ["stats", "-t", f"chars={vocab}", "--resamples", "0", "--no-progress", "--by", "dataset"]
    code = main([*argv, "--data-dir", str(small_root), "-d", "masakhaner2:*:test"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "hau" in out and "yor" in out


def test_the_wildcard_on_the_real_data():
    for corpus, languages, pattern in (
        ("masakhaner2", MASAKHANER2_LANGUAGES, "*_*.txt.gz"),
        ("multiconer2022", MULTICONER_LANGUAGES, "*_*.conll.gz"),
    ):
        files = present(corpus_path(corpus), pattern)
        for split in ("train", "dev", "test"):
            if split == "test" and corpus == "multiconer2022":
                continue
            expected = [f"{corpus}:{lang}:{split}" for lang in languages if (lang, split) in files]
            assert expand_dataset_name(f"{corpus}:*:{split}") == expected
    assert len(expand_dataset_name("masakhaner2:*:test")) == 20
    assert len(expand_dataset_name("multiconer2022:*:dev")) == 11
    assert [n.split(":")[1] for n in expand_dataset_name("multiconer2022:*:train")] == [
        "de",
        "en",
        "es",
        "ko",
        "nl",
        "tr",
    ]
