"""Lenient reading says what it repaired: counts by kind and the first places (issue 24 item 5)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import corpus_path
from tokstudy.data.conll import read_conll
from tokstudy.data.jsonl import read_jsonl
from tokstudy.data.repairs import IOB1_B, START, UNCLOSED, Repair, RepairLog
from tokstudy.data.schemes import to_iob2


@pytest.mark.parametrize(
    "tags, scheme, kinds, out",
    [
        (["O", "I-LOC"], "IOB2", [START], ("O", "B-LOC")),
        (["O", "B-PER"], "IOB1", [IOB1_B], ("O", "B-PER")),
        (["B-PER", "O"], "IOBES", [UNCLOSED], ("B-PER", "O")),
        (["O", "I-PER"], "IOBES", [START], ("O", "B-PER")),  # starts and is left open: one repair, counted once
        (["B-PER", "I-PER"], "IOB2", [], ("B-PER", "I-PER")),
    ],
)
def test_every_repaired_tag_is_recorded_once_with_its_line(tags, scheme, kinds, out):
    repairs: list[Repair] = []
    iob2, n = to_iob2(tags, scheme, lenient=True, path="f.conll", lines=[10, 11], repairs=repairs)
    assert iob2 == out and n == len(kinds) == len(repairs)
    assert [r.kind for r in repairs] == kinds
    for r in repairs:
        assert r.where() == "f.conll:11" if r.tag == tags[1] else r.where() == "f.conll:10"


def test_a_wrong_scheme_is_reported_by_kind_and_place(tmp_path):
    """IOB2 data read as IOB1 (a wrong --scheme): every B- after O is 'repaired', and the log says so."""
    path = tmp_path / "wrong.conll"
    path.write_text("Ana B-PER\nsaw O\nGraz B-LOC\n\nBo B-PER\nI-ORG O\n", encoding="utf-8")
    ds = read_conll(path, scheme="IOB1", lenient=True)
    log = ds.repair_log
    assert ds.repaired == log.total == 3 and log.counts == {IOB1_B: 3}
    assert [r.where() for r in log.first] == [f"{path}:1", f"{path}:3", f"{path}:5"]
    text = log.describe()
    assert text.startswith(f"3 tags repaired in {path} (lenient reading):")
    assert f"{path}:3: 'B-LOC' after 'O' read as 'B-LOC'" in text
    d = log.to_dict(lambda p: "wrong.conll")
    assert d["by_kind"] == {IOB1_B: 3} and d["first"][0]["where"] == "wrong.conll:1"
    json.dumps(d)  # JSON-able
    assert not read_conll(path, scheme="IOB2").repair_log  # nothing repaired: an empty log is false


def test_only_the_first_places_are_kept(tmp_path):
    path = tmp_path / "many.conll"
    path.write_text("".join(f"w{i} O\nx{i} I-LOC\n\n" for i in range(25)), encoding="utf-8")
    log = read_conll(path, scheme="IOB2", lenient=True).repair_log
    assert log.total == 25 and len(log.first) == 10
    assert log.describe().endswith("... and 15 more")


def test_jsonl_reader_keeps_the_log(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"tokens": ["a", "b"], "tags": ["O", "I-X"]}\n', encoding="utf-8")
    log = read_jsonl(path, scheme="IOB2", lenient=True).repair_log
    assert log.counts == {START: 1} and log.first[0].where() == f"{path}:1"


def test_registry_conll2002_es_repairs_are_logged_with_their_place():
    corpus_path("conll2002_es")
    from tokstudy.data.registry import load_dataset

    ds = load_dataset("conll2002_es", "train")
    assert ds.repair_log.total == ds.repaired == 1
    assert ds.repair_log.first[0].where().endswith("esp.train.gz:221619")
    assert ds.repair_log.first[0].tag == "I-LOC" and ds.repair_log.first[0].became == "B-LOC"


def test_an_empty_log_describes_nothing():
    assert RepairLog().total == 0 and not RepairLog()
