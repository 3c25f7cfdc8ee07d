"""load_dataset over every shared corpus: names, splits, languages and the counts in each README."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conftest import corpus_path
from tokstudy.data.corpora import ja_split_of
from tokstudy.data.registry import DatasetInfo, DatasetTask, dataset_info, list_datasets, load_dataset
from tokstudy.errors import DataNotFoundError, TagSchemeError


def entity_counts(ds):
    return Counter(t for s in ds for _, _, t in s.entities())


def test_list_and_info():
    assert list_datasets() == [
        "conll2003",
        "conll2002_es",
        "wikiann",
        "ner_ja_wikipedia",
        "snips",
        "atis",
        "sst2",
        "multiconer2022",
        "masakhaner2",
        "massive",
    ]
    assert dataset_info("snips").task == "slot"
    assert dataset_info("sst2").splits == ("train", "dev")
    assert dataset_info("conll2002_es").default_lenient
    with pytest.raises(KeyError, match="unknown dataset 'nope'"):
        dataset_info("nope")


def test_bad_split_and_language():
    with pytest.raises(ValueError, match="no split 'test'"):
        load_dataset("sst2", "test")
    with pytest.raises(ValueError, match="needs language="):
        load_dataset("wikiann", "test")
    with pytest.raises(ValueError, match="no language 'fr'"):
        load_dataset("wikiann", "test", language="fr")
    with pytest.raises(ValueError, match="no language 'de'"):
        load_dataset("conll2003", "test", language="de")


def test_missing_data_dir_says_where(tmp_path):
    with pytest.raises(DataNotFoundError, match="corpus 'conll2003' not found at .*--data-dir"):
        load_dataset("conll2003", data_dir=tmp_path)


def test_data_dir_argument_overrides_env(monkeypatch, tmp_path):
    root = corpus_path("conll2003").parent
    monkeypatch.setenv("TOKSTUDY_DATA", str(tmp_path))
    ds = load_dataset("conll2003", "dev", data_dir=root)
    assert (len(ds), ds.n_words) == (3250, 51362)


@pytest.mark.parametrize("split,alias,n", [("train", "train", 14041), ("dev", "valid", 3250), ("test", "test", 3453)])
def test_conll2003(split, alias, n):
    corpus_path("conll2003")
    ds = load_dataset("conll2003", alias)
    assert (ds.name, ds.language, ds.split, len(ds)) == ("conll2003", "en", split, n)
    assert ds.metadata["scheme"] == "IOB1" and ds.repaired == 0


def test_conll2002_es_lenient_by_default_strict_on_request():
    corpus_path("conll2002_es")
    total = 0
    for split, n in [("train", 8323), ("dev", 1915), ("test", 1517)]:
        ds = load_dataset("conll2002_es", split)
        assert (ds.language, ds.split, len(ds), ds.repaired) == ("es", split, n, 1)
        assert "lenient" in ds.metadata["note"]
        total += ds.repaired
    assert total == 3
    with pytest.raises(TagSchemeError, match=r"esp\.train\.gz:221619: tag 'I-LOC'"):
        load_dataset("conll2002_es", "train", lenient=False)


WIKIANN = {  # lang: (train, val, test) as (sentences, tokens, entities)
    "de": ((20000, 195387, 27643), (10000, 97805, 13818), (10000, 97646, 13868)),
    "en": ((20000, 160394, 27931), (10000, 80536, 14146), (10000, 80326, 13958)),
    "es": ((20000, 129283, 24750), (10000, 64329, 12270), (10000, 64727, 12260)),
    "nl": ((20000, 169449, 27050), (10000, 84146, 13532), (10000, 85122, 13725)),
    "pl": ((20000, 166474, 29291), (10000, 83706, 15204), (10000, 84625, 14960)),
    "ru": ((20000, 141529, 24629), (10000, 70279, 12334), (10000, 71288, 12177)),
}
WIKIANN_TRAIN_TYPES = {
    "de": {"LOC": 9778, "PER": 9290, "ORG": 8575},
    "en": {"LOC": 9345, "PER": 9164, "ORG": 9422},
    "es": {"LOC": 9144, "PER": 8295, "ORG": 7311},
    "nl": {"LOC": 9964, "PER": 9308, "ORG": 7778},
    "pl": {"LOC": 11354, "PER": 9530, "ORG": 8407},
    "ru": {"LOC": 9498, "PER": 7187, "ORG": 7944},
}


@pytest.mark.parametrize("lang", list(WIKIANN))
def test_wikiann_all_splits(lang):
    corpus_path("wikiann")
    for split, expected in zip(("train", "dev", "test"), WIKIANN[lang]):
        ds = load_dataset("wikiann", split, language=lang)
        assert (ds.name, ds.language, ds.split) == ("wikiann", lang, split)
        assert (len(ds), ds.n_words, ds.n_entities) == expected
        assert ds.repaired == 0
        if split == "train":
            assert entity_counts(ds) == WIKIANN_TRAIN_TYPES[lang]


SLU = {  # corpus: split -> (utterances, tokens, slot tags seen, intents seen)
    "snips": {"train": (13084, 117700, 72, 7), "dev": (700, 6384, 70, 7), "test": (700, 6354, 70, 7)},
    "atis": {"train": (4478, 50497, 120, 21), "dev": (500, 5703, 96, 16), "test": (893, 9164, 101, 20)},
}


@pytest.mark.parametrize("corpus", list(SLU))
def test_slu_counts(corpus):
    corpus_path(corpus)
    tags, intents = set(), Counter()
    for split, (n, toks, n_tags, n_intents) in SLU[corpus].items():
        ds = load_dataset(corpus, split)
        assert (ds.name, ds.split, ds.language) == (corpus, split, "en")
        split_tags = {t for s in ds for t in s.tags}
        assert (len(ds), ds.n_words, len(split_tags), len({s.label for s in ds})) == (n, toks, n_tags, n_intents)
        tags |= split_tags
        intents.update(s.label for s in ds)
    if corpus == "snips":
        assert len(tags) == 72
        assert intents == {
            "PlayMusic": 2100,
            "GetWeather": 2100,
            "BookRestaurant": 2073,
            "SearchScreeningEvent": 2059,
            "RateBook": 2056,
            "SearchCreativeWork": 2054,
            "AddToPlaylist": 2042,
        }
    else:
        assert len(tags) == 127 and len({t[2:] for t in tags if t != "O"}) == 83
        assert len(intents) == 26
        assert sum(c for k, c in intents.items() if "#" in k) == 41


def test_sst2_counts():
    corpus_path("sst2")
    for split, (n, pos, neg, toks) in {"train": (67349, 37569, 29780, 633724), "dev": (872, 444, 428, 17046)}.items():
        ds = load_dataset("sst2", split)
        assert (ds.name, ds.split, len(ds), ds.n_words) == ("sst2", split, n, toks)
        assert Counter(s.label for s in ds) == {"1": pos, "0": neg}
        assert all(s.tags is None for s in ds)
    train = load_dataset("sst2", "train")
    assert len({(s.words, s.label) for s in train}) == 66983  # "unique rows" in the README
    assert train[0].words == ("hide", "new", "secretions", "from", "the", "parental", "units")


def test_ja_split_rule_is_stable_and_roughly_80_10_10():
    counts = Counter(ja_split_of(str(i)) for i in range(10000))
    assert set(counts) == {"train", "dev", "test"}
    assert 7700 < counts["train"] < 8300 and 850 < counts["dev"] < 1150 and 850 < counts["test"] < 1150
    assert ja_split_of("3572156") == ja_split_of("3572156")


def test_every_registry_task_is_one_of_the_closed_vocabulary():
    for name in list_datasets():
        task = dataset_info(name).task
        assert isinstance(task, DatasetTask) and task == task.value and f"{task}" == task.value


def test_a_task_outside_the_vocabulary_is_refused_with_the_dataset_named():
    with pytest.raises(ValueError, match=r"mine: task 'pos' must be ner, slot or classification"):
        DatasetInfo("mine", "pos", ("en",), ("test",), "mine")
