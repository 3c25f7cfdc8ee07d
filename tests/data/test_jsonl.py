"""JSON lines and character-span JSON readers, including the real ner_ja_wikipedia counts."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from tests.conftest import corpus_path
from tokstudy.data.jsonl import JA_TYPES_EN, read_char_span_json, read_jsonl
from tokstudy.data.registry import load_dataset
from tokstudy.errors import DataFormatError, TagSchemeError


def jl(tmp_path, *objs, name="a.jsonl", end="\n"):
    """A JSON-lines file of ``objs`` (a string is written as it is), each line ended by ``end``."""
    p = tmp_path / name
    p.write_text("".join((o if isinstance(o, str) else json.dumps(o, ensure_ascii=False)) + end for o in objs))
    return p


def record(curid: str, text: str, *entities: tuple[str, int, int, str]) -> dict:
    """A character-span record; each entity is ``(name, start, end, type)``."""
    return {
        "curid": curid,
        "text": text,
        "entities": [{"name": n, "span": [a, b], "type": t} for n, a, b, t in entities],
    }


def spans_json(tmp_path, records, name="r.json"):
    p = tmp_path / name
    p.write_text(json.dumps(records, ensure_ascii=False))
    return p


# ---- JSON lines --------------------------------------------------------------------------------


def test_jsonl_reads_and_normalises(tmp_path):
    p = jl(
        tmp_path,
        {"tokens": ["EU", "rejects"], "tags": ["S-ORG", "O"], "y": 1},
        "",
        {"tokens": ["New", "York"], "tags": ["B-LOC", "E-LOC"], "y": 0},
    )
    ds = read_jsonl(p, label_key="y", name="j", split="dev")
    assert [s.tags for s in ds] == [("B-ORG", "O"), ("B-LOC", "I-LOC")]
    assert [s.line for s in ds] == [1, 3] and [s.label for s in ds] == ["1", "0"]
    assert (ds.name, ds.split, ds.metadata["scheme"]) == ("j", "dev", "IOBES")


def test_jsonl_custom_keys(tmp_path):
    p = jl(tmp_path, {"words": ["a"], "ner": ["B-X"]})
    assert read_jsonl(p, tokens_key="words", tags_key="ner")[0].tags == ("B-X",)


@pytest.mark.parametrize(
    "line,match",
    [
        ('{"tokens": ["a"], "tags": ["O"]', r"b\.jsonl:2: invalid JSON"),
        ('["a"]', r"b\.jsonl:2: expected a JSON object"),
        ('{"tokens": ["a"]}', r"b\.jsonl:2: missing key 'tags'"),
        ('{"tokens": ["a", "b"], "tags": ["O"]}', r"b\.jsonl:2: 2 tokens but 1 tags"),
        ('{"tokens": "a", "tags": ["O"]}', r"b\.jsonl:2: 'tokens' must be a list of strings"),
        ('{"tokens": ["a"], "tags": ["X-PER"]}', r"b\.jsonl:2: tag 'X-PER' is outside"),
    ],
)
def test_jsonl_errors_name_line(tmp_path, line, match):
    p = jl(tmp_path, {"tokens": ["x"], "tags": ["B-PER"]}, line, name="b.jsonl")
    with pytest.raises(DataFormatError, match=match):
        read_jsonl(p)


def test_jsonl_forbidden_i_and_lenient(tmp_path):
    p = jl(tmp_path, {"tokens": ["x"], "tags": ["B-PER"]}, {"tokens": ["a", "b"], "tags": ["O", "I-LOC"]})
    with pytest.raises(TagSchemeError, match=r"a\.jsonl:2: tag 'I-LOC'"):
        read_jsonl(p)
    assert read_jsonl(p, lenient=True).repaired == 1


def test_jsonl_empty(tmp_path):
    with pytest.raises(DataFormatError, match=r"e\.jsonl: file is empty"):
        read_jsonl(jl(tmp_path, name="e.jsonl", end=""))


# ---- character spans ---------------------------------------------------------------------------


def test_char_spans_to_words_and_tags(tmp_path):
    records = [
        record(
            "9",
            "レッドフォックス株式会社は、東京都千代田区に本社",
            ("レッドフォックス株式会社", 0, 12, "法人名"),
            ("東京都", 14, 17, "地名"),
        ),
        record("9", "Red Fox Inc. です", ("Red Fox", 0, 7, "法人名")),
        record("3", "なし"),
    ]
    p = spans_json(tmp_path, records)
    ds = read_char_span_json(p, name="ja", split="all")
    s = ds[0]
    assert s.words == ("レッドフォックス", "株式会社", "は", "、", "東京都", "千代田区", "に", "本社")
    assert s.tags == ("B-法人名", "I-法人名", "O", "O", "B-地名", "O", "O", "O")
    assert ds[1].words == ("Red", "Fox", "Inc", ".", "です") and ds[1].tags[:3] == ("B-法人名", "I-法人名", "O")
    assert [x.doc_id for x in ds] == [0, 0, 1]
    assert ds.metadata["curids"] == ("9", "9", "3") and ds.metadata["records"] == (0, 1, 2)
    assert read_char_span_json(p, type_map=JA_TYPES_EN)[0].tags[0] == "B-corporation"


@pytest.mark.parametrize(
    "entity,match",
    [
        ({"name": "東京", "span": [0, 3], "type": "地名"}, r"record 1 \(curid 7\): entity 0 name '東京' != text"),
        ({"name": "x", "span": [5, 99], "type": "地名"}, r"record 1 \(curid 7\): entity 0 span \[5, 99\) is outside"),
        ({"span": [0, 3]}, r"record 1 \(curid 7\): entity 0 needs"),
    ],
)
def test_char_span_errors_name_record(tmp_path, entity, match):
    p = spans_json(
        tmp_path,
        [{"curid": "1", "text": "a", "entities": []}, {"curid": "7", "text": "東京都に本社", "entities": [entity]}],
    )
    with pytest.raises(DataFormatError, match=match) as exc:
        read_char_span_json(p)
    assert exc.value.path.endswith("r.json")


def test_char_span_overlap_and_unknown_type(tmp_path):
    p = spans_json(tmp_path, [record("5", "東京都に", ("東京都", 0, 3, "地名"), ("京都", 1, 3, "地名"))])
    with pytest.raises(DataFormatError, match=r"record 0 \(curid 5\): entities \[0, 3\) and \[1, 3\) overlap"):
        read_char_span_json(p)
    q = spans_json(tmp_path, [record("5", "東京都", ("東京都", 0, 3, "謎"))], name="q.json")
    with pytest.raises(DataFormatError, match=r"type '謎' is not in type_map"):
        read_char_span_json(q, type_map=JA_TYPES_EN)


def test_char_span_bad_pretokenizer_is_caught(tmp_path):
    p = spans_json(tmp_path, [record("5", "東京都に", ("東京", 0, 2, "地名"))])
    with pytest.raises(DataFormatError, match=r"does not start and end on word boundaries"):
        read_char_span_json(p, pretokenizer=lambda text, cuts: [(0, len(text))])


def test_char_span_invalid_json_and_utf8(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('[\n{"curid": "1",\n "text": }\n]')
    with pytest.raises(DataFormatError, match=r"bad\.json:3: invalid JSON"):
        read_char_span_json(p)
    q = tmp_path / "bad8.json.gz"
    q.write_bytes(gzip.compress(b'[\n{"text": "\xff"}]'))
    with pytest.raises(DataFormatError, match=r"bad8\.json\.gz:2: invalid UTF-8"):
        read_char_span_json(q)


JA_TYPES = {
    "人名": 2980,
    "法人名": 2485,
    "地名": 2157,
    "製品名": 1215,
    "政治的組織名": 1180,
    "施設名": 1108,
    "その他の組織名": 1051,
    "イベント名": 1009,
}


def test_ner_ja_wikipedia_counts_and_round_trip():
    path = corpus_path("ner_ja_wikipedia") / "ner.json.gz"
    ds = read_char_span_json(path)
    assert len(ds) == 5343 and ds.n_documents == 5235
    assert Counter(t for s in ds for _, _, t in s.entities()) == JA_TYPES
    assert ds.n_entities == 13185
    # independent check: every entity's words, joined, give its name in the original JSON
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        records = json.load(fh)
    assert sum(len(r["text"].replace(" ", "").replace("\u3000", "")) for r in records) == sum(
        len("".join(s.words)) for s in ds
    )
    for s, rec in zip(ds, records):
        names = sorted(e["name"].replace(" ", "") for e in rec["entities"])
        assert sorted("".join(s.words[a:b]) for a, b, _ in s.entities()) == names


def test_ner_ja_registry_splits_partition_by_page():
    corpus_path("ner_ja_wikipedia")
    parts = {sp: load_dataset("ner_ja_wikipedia", sp) for sp in ("train", "dev", "test", "all")}
    assert sum(len(parts[sp]) for sp in ("train", "dev", "test")) == len(parts["all"]) == 5343
    assert sum(parts[sp].n_entities for sp in ("train", "dev", "test")) == 13185
    pages = [set(parts[sp].metadata["curids"]) for sp in ("train", "dev", "test")]
    assert not (pages[0] & pages[1] or pages[0] & pages[2] or pages[1] & pages[2])
    assert 0.75 < len(parts["train"]) / 5343 < 0.85
    assert [parts[sp].split for sp in parts] == ["train", "dev", "test", "all"] and parts["dev"].language == "ja"
    assert [s.sent_id for s in parts["test"]] == list(range(len(parts["test"])))
