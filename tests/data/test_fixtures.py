"""The small fixtures in data/fixtures (written by the project, not copied from a corpus) read as documented."""

from __future__ import annotations

from tests.conftest import PROJECT_ROOT
from tokstudy.data.conll import read_conll
from tokstudy.data.jsonl import JA_TYPES_EN, read_char_span_json, read_jsonl
from tokstudy.data.rawtext import read_parallel
from tokstudy.data.slu import read_slu
from tokstudy.data.tsv import read_tsv

FIX = PROJECT_ROOT / "data" / "fixtures"


def test_conll_iob1_fixture():
    ds = read_conll(FIX / "conll_iob1.txt", name="fixture", language="en")
    assert ds.metadata["scheme"] == "IOB1"
    assert (len(ds), ds.n_words, ds.n_documents, ds.n_entities) == (3, 28, 2, 7)
    assert ds[1].tags[:4] == ("B-ORG", "I-ORG", "B-ORG", "I-ORG")  # IOB1 B- between adjacent ORGs


def test_two_column_fixture():
    ds = read_conll(FIX / "wikiann_iob2.tsv")
    assert [len(s) for s in ds] == [5, 4] and ds.n_entities == 3 and ds.metadata["scheme"] == "IOB2"


def test_slu_tsv_json_fixtures():
    slu = read_slu(FIX / "slu", name="fixture")
    assert [s.label for s in slu] == ["PlayMusic", "GetWeather", "BookRestaurant"] and slu.n_words == 18
    assert len(read_tsv(FIX / "sentences.tsv")) == 3
    jl = read_jsonl(FIX / "tagged.jsonl")
    assert jl.metadata["scheme"] == "IOBES" and jl[0].tags == ("B-PER", "I-PER", "O", "B-LOC")
    ja = read_char_span_json(FIX / "ner_spans.json", type_map=JA_TYPES_EN)
    assert [e for s in ja for e in s.entities()] == [(0, 1, "person"), (2, 4, "corporation"), (0, 2, "facility")]
    assert [s.doc_id for s in ja] == [0, 1, 1]
    assert read_parallel(FIX / "parallel") == {
        "de": ["Die Katze schläft.", "Es ist warm.", "Regen fällt."],
        "en": ["The cat sleeps.", "It is warm.", "Rain falls."],
    }
