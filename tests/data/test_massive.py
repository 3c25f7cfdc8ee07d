"""MASSIVE: the registry's partitions have the README's counts, the reader equals an independent parse of the
real file (words, slot tags, intents), a MASSIVE file is read from any folder (``--format massive`` or by its
content), and bad records are refused at their line."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tokstudy.data.massive import parse_annotation, read_massive
from tokstudy.data.registry import dataset_info, load_dataset
from tokstudy.errors import DataFormatError
from tokstudy.inputs import FileOptions, load_datasets


def readme_counts(folder: Path) -> dict[str, int]:
    """``partition -> utterances`` from the README's line ``train 11,514 / dev 2,033 / test 2,974 utterances``."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"(train|dev|test) ([\d,]+)", text.split("## Verified counts", 1)[1])
    return {part: int(n.replace(",", "")) for part, n in found}


def independent_parse(annot: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Words and IOB2 tags read token by token: ``[slot`` opens, ``:`` follows, a token ending in ``]`` closes."""
    words, tags, slot, first = [], [], None, False
    tokens = annot.split()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if slot is None and token.startswith("["):
            slot, first = token[1:], True
            assert tokens[i + 1] == ":", annot
            i += 2
            continue
        closes = slot is not None and token.endswith("]")
        word = token[:-1] if closes else token
        tags.append("O" if slot is None else ("B-" if first else "I-") + slot)
        words.append(word)
        first = False
        if closes:
            slot = None
        i += 1
    return tuple(words), tuple(tags)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    path = corpus_path("massive") / "en-US.jsonl.gz"
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()]


def test_partitions_have_the_readme_counts_and_equal_an_independent_parse(rows):
    counts = readme_counts(corpus_path("massive"))
    assert counts == {"train": 11514, "dev": 2033, "test": 2974}
    for partition, n in counts.items():
        ds = load_dataset("massive", partition)
        assert (ds.name, ds.language, ds.split, len(ds)) == ("massive", "en-US", partition, n)
        reference = [r for r in rows if r["partition"] == partition]
        assert [(s.words, s.tags) for s in ds] == [independent_parse(r["annot_utt"]) for r in reference]
        assert [s.label for s in ds] == [r["intent"] for r in reference]
        assert [s.words for s in ds] == [tuple(r["utt"].split()) for r in reference]
        assert ds.metadata["ids"] == tuple(r["id"] for r in reference)
        assert ds.n_entities == sum(r["annot_utt"].count("[") for r in reference)
    assert len({r["intent"] for r in rows}) == 60
    assert len({t[2:] for r in rows for t in independent_parse(r["annot_utt"])[1] if t != "O"}) == 55


def test_info():
    info = dataset_info("massive")
    assert (info.task, info.languages, info.splits) == ("slot", ("en-US",), ("train", "dev", "test"))


def test_a_users_file_any_locale_by_format_or_by_content(tmp_path):
    """A MASSIVE file of another locale, from the user's own folder: ``--format massive``, or ``auto`` by content."""
    record = {"id": "7", "locale": "de-DE", "partition": "test", "intent": "alarm_set"}
    lines = [
        {**record, "annot_utt": "weck mich um [time : fünf uhr]"},
        {**record, "id": "8", "partition": "train", "intent": "iot_cleaning", "annot_utt": "[date : 明日]の天気"},
    ]
    path = tmp_path / "de-DE.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    for options in (FileOptions(format="massive"), FileOptions()):
        (ds,) = load_datasets([str(path)], options=options)
        assert (ds.name, ds.language, ds.split, len(ds)) == ("de-DE", "de-DE", "all", 2)
        assert ds[0].tags == ("O", "O", "O", "B-time", "I-time") and ds[0].label == "alarm_set"
        assert ds[1].words == ("明日", "の天気") and ds[1].tags == ("B-date", "O")
    test = read_massive(path, partition="test")
    assert (test.split, len(test), test[0].line) == ("test", 1, 1)
    (ds,) = load_datasets([f"{path}@de"], options=FileOptions(format="massive"))
    assert ds.language == "de"


@pytest.mark.parametrize(
    "annot, message",
    [
        ("wake me [time : five", "'[' at character 9 is never closed"),
        ("wake me [time five]", "is not [slot_name : words]"),
        ("wake [a : [b : x]]", "opens a slot inside another"),
        ("wake me] up", "']' at character 8 closes no slot"),
        ("[time : ]", "is not [slot_name : words]"),
        ("   ", "empty utterance"),
    ],
)
def test_bad_annotations(annot, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_annotation(annot)


def test_bad_records_are_refused_at_their_line(tmp_path):
    path = tmp_path / "xx-XX.jsonl"
    good = json.dumps({"intent": "a", "annot_utt": "hi", "partition": "test"})
    bad = [
        "{not json",
        json.dumps({"intent": "a", "annot_utt": "wake [time : x"}),
        json.dumps({"annot_utt": "hi"}),
    ]
    path.write_text("\n".join([good, *bad]) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_massive(path)
    message = str(err.value)
    assert message.startswith(f"{path}:2: invalid JSON")
    assert f"{path}:3: '[' at character 6 is never closed" in message
    assert f"{path}:4: missing or empty 'intent'" in message and "(3 problems in all)" in message
    ok = tmp_path / "ok.jsonl"
    ok.write_text(good + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="no utterance with partition 'dev'"):
        read_massive(ok, partition="dev")
