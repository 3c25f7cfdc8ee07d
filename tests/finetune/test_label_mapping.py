"""A model's labels onto a dataset's tags: every spelling and scheme against a truth known by construction, the
label map, the refusals, and the label map files."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pretrain.finetune.label_mapping import map_labels, read_label_map
from tokstudy.errors import ConfigError, DataFormatError

SETTINGS = settings(
    max_examples=int(os.environ.get("TOKSTUDY_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    derandomize=not os.environ.get("TOKSTUDY_PROPERTY_EXAMPLES"),
    suppress_health_check=[HealthCheck.too_slow],
)

#: how models spell each dataset type (the truth: the type each spelling means)
SPELLINGS = {
    "PER": ["PER", "per", "Person", "PERSON", "person", "pers", "Persons"],
    "LOC": ["LOC", "loc", "location", "Location", "LOCATION"],
    "ORG": ["ORG", "org", "organization", "Organisation", "ORGANIZATION"],
    "MISC": ["MISC", "misc", "miscellaneous", "Miscellaneous"],
}
#: types of other corpora that must match none of the above (PERCENT starts like PER, LOCALE like LOC)
FOREIGN = ["PERCENT", "GPE", "DATE", "NORP", "LOCALE", "ORGAN", "misc_event"]
#: every prefix a scheme writes, and what it is in IOB2 (a bare type continues an entity, as in IO)
IOB2_OF = {"B": "B", "S": "B", "U": "B", "I": "I", "E": "I", "L": "I", "": "I"}


def _label(prefix: str, sep: str, lower: bool, name: str) -> str:
    if not prefix:
        return name
    return f"{prefix.lower() if lower else prefix}{sep}{name}"


LABELS = st.tuples(
    st.sampled_from(sorted(IOB2_OF)),
    st.sampled_from(["-", "_"]),
    st.booleans(),
    st.one_of(
        st.sampled_from([(t, s) for t, spellings in SPELLINGS.items() for s in spellings]),
        st.sampled_from([(None, s) for s in FOREIGN]),
    ),
)


@SETTINGS
@given(
    st.lists(LABELS, min_size=1, max_size=14),
    st.lists(st.sampled_from(sorted(SPELLINGS)), min_size=1, max_size=4, unique=True),
    st.booleans(),
)
def test_every_spelling_maps_to_the_type_it_means(drawn, types, with_o):
    labels, truth = (["O"], ["O"]) if with_o else ([], [])
    for prefix, sep, lower, (meaning, name) in drawn:
        label = _label(prefix, sep, lower, name)
        if label in labels or (not prefix and label.upper() == "O"):
            continue
        labels.append(label)
        truth.append(f"{IOB2_OF[prefix]}-{meaning}" if meaning in types else "O")
    m = map_labels(labels, types)
    assert m.targets == tuple(truth)
    assert m.unmapped == tuple(l for l, t in zip(labels, truth) if t == "O" and l != "O")
    reached = {t[2:] for t in truth if t != "O"}
    assert m.labels == ("O",) + tuple(f"{p}-{t}" for t in types if t in reached for p in "BI")
    # the projection adds each model label's probability into its tag's column
    rng = np.random.default_rng(len(labels))
    probs = rng.dirichlet(np.ones(len(labels)), size=3)
    expected = np.zeros((3, len(m.labels)))
    for j, tag in enumerate(truth):
        expected[:, m.labels.index(tag)] += probs[:, j]
    np.testing.assert_allclose(m.project(probs), expected)
    np.testing.assert_allclose(m.project(probs).sum(axis=1), 1.0)


def test_dslim_order_and_iobes_and_bilou_spellings():
    dslim = ["O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"]
    m = map_labels(dslim, ["LOC", "PER", "ORG", "MISC"])
    assert m.targets == tuple(dslim) and m.unmapped == ()
    assert m.labels == ("O", "B-LOC", "I-LOC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-MISC", "I-MISC")
    iobes = map_labels(["O", "S-person", "E-person", "U-loc", "L-loc"], ["PER", "LOC"])
    assert iobes.targets == ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")
    assert map_labels(["o", "b_per"], ["PER"]).targets == ("O", "B-PER")


def test_label_map_renames_types_and_labels():
    onto = ["O", "B-PERSON", "I-PERSON", "B-GPE", "I-GPE", "B-DATE", "I-DATE", "B-FAC"]
    m = map_labels(onto, ["PER", "LOC", "ORG"], {"GPE": "LOC", "gpe": "LOC", "FAC": "O", "B-DATE": "B-ORG"})
    assert m.targets == ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "O", "O")
    assert m.unmapped == ("I-DATE", "B-FAC")
    # a model type that matches by name can still be sent elsewhere
    assert map_labels(["B-PER"], ["PER", "MISC"], {"PER": "MISC"}).targets == ("B-MISC",)
    assert "B-GPE:B-LOC" in m.metadata()["label_map"].split(",")
    assert m.metadata()["labels_to_o"] == "I-DATE,B-FAC"


def test_generic_labels_need_a_map():
    generic = ["LABEL_0", "LABEL_1", "LABEL_2"]
    with pytest.raises(DataFormatError, match=r"^models/x: the model's labels are generic \(LABEL_0, LABEL_1"):
        map_labels(generic, ["PER"], model="models/x")
    m = map_labels(generic, ["PER"], {"LABEL_0": "O", "LABEL_1": "B-PER", "LABEL_2": "I-PER"})
    assert m.targets == ("O", "B-PER", "I-PER")
    with pytest.raises(DataFormatError, match="LABEL_2"):
        map_labels(generic, ["PER"], {"LABEL_0": "O", "LABEL_1": "B-PER"})


def test_label_map_naming_unknown_tags_is_refused():
    with pytest.raises(ConfigError, match=r"^map.yaml: label map names 'NORP', which is neither a label nor a type"):
        map_labels(["O", "B-GPE"], ["LOC"], {"NORP": "LOC"}, map_source="map.yaml")
    with pytest.raises(ConfigError, match=r"^map.yaml: label map sends 'GPE' to 'PLACE', which is not a tag of the"):
        map_labels(["O", "B-GPE"], ["LOC"], {"GPE": "PLACE"}, map_source="map.yaml")
    with pytest.raises(ConfigError, match="'X-LOC'"):
        map_labels(["O", "B-GPE"], ["LOC"], {"GPE": "X-LOC"})


def test_a_type_two_dataset_types_match_is_refused():
    with pytest.raises(DataFormatError, match=r"'B-per' matches the dataset's types PER and per; pass --label-map"):
        map_labels(["B-per"], ["PER", "per"])


def test_label_map_files(tmp_path):
    (tmp_path / "m.yaml").write_text("# OntoNotes to CoNLL\nGPE: LOC\nPERSON: PER\n", encoding="utf-8")
    (tmp_path / "m.json").write_text(json.dumps({"GPE": "LOC", "PERSON": "PER"}), encoding="utf-8")
    (tmp_path / "m.tsv").write_text("# model\tdataset\nGPE\tLOC\n\nPERSON\tPER\n", encoding="utf-8")
    for name in ("m.yaml", "m.json", "m.tsv"):
        assert read_label_map(tmp_path / name) == {"GPE": "LOC", "PERSON": "PER"}
    (tmp_path / "bad.tsv").write_text("GPE\tLOC\nPERSON PER extra\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.tsv:2: expected 'model<TAB>dataset'"):
        read_label_map(tmp_path / "bad.tsv")
    (tmp_path / "bad.yaml").write_text("GPE: LOC\nPERSON: [PER\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.yaml:\d+: not a valid label map"):
        read_label_map(tmp_path / "bad.yaml")
    (tmp_path / "list.json").write_text('["GPE", "LOC"]', encoding="utf-8")
    with pytest.raises(ConfigError, match="expected a mapping"):
        read_label_map(tmp_path / "list.json")
    (tmp_path / "nested.yaml").write_text("GPE: {a: 1}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="'GPE' is not a tag name"):
        read_label_map(tmp_path / "nested.yaml")
    with pytest.raises(ConfigError, match="label map file not found"):
        read_label_map(tmp_path / "absent.yaml")
