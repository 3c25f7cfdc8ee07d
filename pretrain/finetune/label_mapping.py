"""A model's labels as a dataset's tags: matched by name whatever the spelling, or through a label map.

A token classifier fine-tuned elsewhere names its labels its own way and in its own order: dslim/bert-base-NER
has ``O B-MISC I-MISC B-PER ...``, others write ``S-person``/``E-person`` (IOBES), ``U-LOC``/``L-LOC``
(BILOU), bare types ``PER`` (IO) or ``b_per``. Each model label is read as a prefix and a type, then:

1. its type is looked up in the label map (``--label-map``: the full label first, then its type), else
   matched to one of the dataset's types by name: equal once case and everything but letters and digits are
   dropped, or one of the spelled-out forms of :data:`ALIASES` (``person`` is ``PER``). Prefix matching is
   deliberately not used: ``PER`` is a prefix of OntoNotes' ``PERCENT``;
2. its prefix becomes an IOB2 prefix: ``B``, ``S`` and ``U`` start an entity (``B-``); ``I``, ``E``, ``L``
   and a bare type continue one (``I-``); a continuing tag after ``O`` or another type opens its entity
   (:meth:`LabelMapping.columns_after`, the lenient IOB2 reading of :func:`tokstudy.data.schemes.to_iob2`), which
   turns IOB1, IO, IOBES and BILOU sequences into the IOB2 that the readers normalise every dataset to;
3. a label whose type names nothing in the dataset becomes ``O`` and is listed in :attr:`LabelMapping.unmapped`.

The model's probabilities over its labels become probabilities over the dataset's tags by adding up the labels
that map to one tag (:meth:`LabelMapping.project`). Generic names (``LABEL_0``, ``LABEL_1``: a model saved
without ``id2label``) say nothing, and are refused unless the label map names every one.

>>> m = map_labels(["O", "S-person", "B-person", "E-person", "B-GPE"], ["PER", "LOC"])
>>> m.targets, m.labels, m.unmapped
(('O', 'B-PER', 'B-PER', 'I-PER', 'O'), ('O', 'B-PER', 'I-PER'), ('B-GPE',))
>>> map_labels(["O", "B-GPE"], ["PER", "LOC"], {"GPE": "LOC"}).targets
('O', 'B-LOC')
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import yaml

from tokstudy.data.schemes import split_tag
from tokstudy.errors import ConfigError, DataFormatError

#: Spelled-out forms of the types the registry's corpora use, each group one type (compared as :func:`type_key`).
ALIASES: tuple[frozenset[str], ...] = (
    frozenset({"per", "pers", "person", "persons"}),
    frozenset({"loc", "location", "locations"}),
    frozenset({"org", "organization", "organisation", "organizations", "organisations"}),
    frozenset({"misc", "miscellaneous"}),
    frozenset({"prod", "product", "products"}),
    frozenset({"corp", "corporation", "corporations"}),
    frozenset({"grp", "group", "groups"}),
    frozenset({"cw", "creativework", "creativeworks"}),
)
#: What each model prefix is in IOB2: ``B`` starts an entity, ``I`` continues one (a bare type continues).
IOB2_PREFIX = {"B": "B", "S": "B", "U": "B", "I": "I", "E": "I", "L": "I", "": "I"}
_GENERIC = re.compile(r"LABEL_\d+")
_PREFIXED = re.compile(r"([BIESLUbieslu])[-_](.+)")


def type_key(name: str) -> str:
    """A type's name as names are compared: case-folded, letters and digits only.

    >>> type_key("Creative-Work"), type_key("B_person")
    ('creativework', 'bperson')
    """
    return "".join(c for c in name.casefold() if c.isalnum())


def parse_label(label: str) -> tuple[str, str]:
    """``(prefix, type)`` of a model label, the prefix upper-cased (``""``: a bare type; ``("O", "")``: outside).

    >>> parse_label("b_per"), parse_label("S-person"), parse_label("PER"), parse_label("o")
    (('B', 'per'), ('S', 'person'), ('', 'PER'), ('O', ''))
    """
    if label.strip().upper() == "O":
        return "O", ""
    match = _PREFIXED.fullmatch(label.strip())
    if match:
        return match.group(1).upper(), match.group(2)
    return "", label.strip()


@dataclass(frozen=True)
class LabelMapping:
    """Every model label's tag in the dataset, and the tags the model can predict.

    >>> m = map_labels(["B-PER", "O", "I-PER"], ["PER"])
    >>> m.project(np.array([[0.5, 0.2, 0.3]])).tolist()
    [[0.2, 0.5, 0.3]]
    """

    model_labels: tuple[str, ...]
    """The model's labels, by output index (``config.id2label``)."""
    targets: tuple[str, ...]
    """Each model label's IOB2 tag in the dataset's types (``O`` for a label of no dataset type)."""
    labels: tuple[str, ...]
    """The tags predicted words can get: ``O``, then ``B-``/``I-`` of each dataset type some label maps to (in the
    dataset's order)."""
    unmapped: tuple[str, ...]
    """Model labels of a type the dataset does not have (they become ``O``)."""

    def __post_init__(self) -> None:
        if len(self.targets) != len(self.model_labels):
            raise ValueError(f"{len(self.model_labels)} model labels but {len(self.targets)} targets")
        stray = sorted(set(self.targets) - set(self.labels))
        if stray or not self.labels or self.labels[0] != "O":
            raise ValueError(f"targets {stray} are not among the labels {self.labels} (which start with O)")

    @property
    def columns(self) -> tuple[int, ...]:
        """Each model label's index in :attr:`labels`."""
        return tuple(self.labels.index(t) for t in self.targets)

    def columns_after(self, previous: str) -> tuple[int, ...]:
        """Each model label's index in :attr:`labels` for a word that follows a word tagged ``previous``: a
        continuing tag (``I-X``) opens its entity (``B-X``) unless ``previous`` is in an ``X`` entity, as IOB1, IO,
        IOBES and BILOU sequences are read in IOB2."""
        open_type = previous[2:] if previous != "O" else None
        return tuple(
            self.labels.index("B-" + t[2:] if t.startswith("I-") and t[2:] != open_type else t) for t in self.targets
        )

    def project(self, probs: np.ndarray, previous: str | None = None) -> np.ndarray:
        """Probabilities over the model's labels (last axis) as probabilities over :attr:`labels`: each label's
        into its tag's column (``previous``: the tag of the word before, see :meth:`columns_after`)."""
        columns = self.columns if previous is None else self.columns_after(previous)
        onto = np.zeros((len(self.model_labels), len(self.labels)), dtype=probs.dtype)
        onto[np.arange(len(self.model_labels)), columns] = 1
        return probs @ onto

    def pairs(self) -> tuple[str, ...]:
        """``model:tag`` for every model label."""
        return tuple(f"{m}:{t}" for m, t in zip(self.model_labels, self.targets))

    def metadata(self) -> dict[str, str]:
        """The ``# key=value`` lines the predictions files carry about the mapping: comma-separated, as a
        metadata value with spaces and tag-like words could read as a word line of the conlleval format."""
        return {"label_map": ",".join(self.pairs()), "labels_to_o": ",".join(self.unmapped) or "none"}


def map_labels(
    model_labels: Sequence[str],
    dataset_types: Sequence[str],
    label_map: Mapping[str, str] | None = None,
    *,
    model: str | os.PathLike | None = None,
    map_source: str | os.PathLike | None = None,
) -> LabelMapping:
    """The :class:`LabelMapping` of ``model_labels`` onto ``dataset_types`` (rules in the module docstring).

    ``model`` and ``map_source`` name the model and the label map file in errors: generic labels the map does
    not name, a type two dataset types match, and a map naming a label the model lacks or a tag the dataset
    lacks are each refused in one line."""
    model_labels = tuple(model_labels)
    types = tuple(dict.fromkeys(dataset_types))
    given = _check_map(label_map or {}, model_labels, types, map_source)
    generic = [l for l in model_labels if _GENERIC.fullmatch(l) and l not in given]
    if generic:
        raise DataFormatError(
            f"the model's labels are generic ({', '.join(generic[:4])}{', ...' if len(generic) > 4 else ''}): "
            "they do not say which entity each is; pass --label-map FILE naming each one's tag (e.g. LABEL_1: B-PER)",
            path=model,
        )
    targets = tuple(_target(label, types, given, model) for label in model_labels)
    reached = {split_tag(t)[1] for t in targets if t != "O"}
    labels = ("O",) + tuple(f"{p}-{t}" for t in types if t in reached for p in "BI")
    unmapped = tuple(l for l, t in zip(model_labels, targets) if t == "O" and parse_label(l)[0] != "O")
    return LabelMapping(model_labels, targets, labels, unmapped)


def _check_map(
    label_map: Mapping[str, str], model_labels: tuple[str, ...], types: tuple[str, ...], source
) -> dict[str, str]:
    """The map with every key a model label or a model type and every value ``O``, a dataset type or a tag of
    one, keyed as given (the full label) or by :func:`type_key` (a type)."""
    full = set(model_labels)
    model_types = {type_key(parse_label(l)[1]) for l in model_labels}
    out = {}
    for key, value in label_map.items():
        if key not in full and type_key(key) not in model_types:
            raise ConfigError(
                f"label map names {key!r}, which is neither a label nor a type of the model "
                f"(its labels: {' '.join(model_labels)})",
                path=source,
            )
        prefix, kind = split_tag(str(value))
        if value != "O" and value not in types and not (prefix in "BIESLU" and prefix and kind in types):
            raise ConfigError(
                f"label map sends {key!r} to {value!r}, which is not a tag of the dataset "
                f"(expected O, one of its types {' '.join(types)}, or B-TYPE/I-TYPE)",
                path=source,
            )
        out[key if key in full else type_key(key)] = str(value)
    return out


def _target(label: str, types: tuple[str, ...], given: dict[str, str], model) -> str:
    """One model label's IOB2 tag in the dataset."""
    prefix, kind = parse_label(label)
    if prefix == "O" and label not in given:
        return "O"
    value = given.get(label, given.get(type_key(kind)))
    if value is not None:
        if value == "O":
            return "O"
        if value in types:
            return f"{IOB2_PREFIX[prefix if prefix != 'O' else 'B']}-{value}"
        own_prefix, own_type = split_tag(value)
        return f"{IOB2_PREFIX[own_prefix]}-{own_type}"
    found = match_type(kind, types)
    if len(found) > 1:
        raise DataFormatError(
            f"the model's label {label!r} matches the dataset's types {' and '.join(found)}; "
            "pass --label-map FILE to say which",
            path=model,
        )
    return f"{IOB2_PREFIX[prefix]}-{found[0]}" if found else "O"


def match_type(kind: str, types: Sequence[str]) -> list[str]:
    """The dataset types a model's type names: the same :func:`type_key`, or two spellings of one
    :data:`ALIASES` group.

    >>> match_type("Person", ["LOC", "PER"]), match_type("PERCENT", ["PER"])
    (['PER'], [])
    """
    key = type_key(kind)
    same = [t for t in types if type_key(t) == key]
    if same:
        return same
    group = next((g for g in ALIASES if key in g), frozenset())
    return [t for t in types if type_key(t) in group]


def dataset_types(tag_sequences) -> tuple[str, ...]:
    """The entity types of IOB2 tag sequences, in order of first appearance.

    >>> dataset_types([["O", "B-PER"], ["B-LOC", "I-LOC", "B-PER"]])
    ('PER', 'LOC')
    """
    seen: dict[str, None] = {}
    for tags in tag_sequences:
        for tag in tags:
            if tag != "O":
                seen.setdefault(split_tag(tag)[1], None)
    return tuple(seen)


def read_label_map(path: str | os.PathLike) -> dict[str, str]:
    """A label map file: model label or type -> dataset type or tag, as YAML or JSON (one mapping), or as
    TSV (``model<TAB>dataset`` per line, ``#`` comments). Malformed files are a
    :class:`~tokstudy.errors.ConfigError` naming the file and line.

    ``label_map.yaml``::

        PERSON: PER
        GPE: LOC
        NORP: MISC
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError("label map file not found", path=path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".tsv", ".txt"):
        return _read_tsv(text, path)
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)  # YAML's 0-based position of the fault
        line = getattr(exc, "lineno", None) or (mark.line + 1 if mark is not None else None)
        raise ConfigError(f"not a valid label map ({type(exc).__name__})", path=path, line=line) from None
    if not isinstance(data, dict) or not data:
        raise ConfigError("expected a mapping of model labels or types to dataset types (e.g. GPE: LOC)", path=path)
    bad = [k for k, v in data.items() if not isinstance(v, str) or not str(k).strip()]
    if bad:
        raise ConfigError(f"the value of {bad[0]!r} is not a tag name; expected e.g. GPE: LOC", path=path)
    return {str(k).strip(): v.strip() for k, v in data.items()}


def _read_tsv(text: str, path: Path) -> dict[str, str]:
    out = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) != 2 or not all(f.strip() for f in fields):
            raise ConfigError(f"expected 'model<TAB>dataset', found {line[:60]!r}", path=path, line=lineno)
        out[fields[0].strip()] = fields[1].strip()
    if not out:
        raise ConfigError("no mapping lines; expected 'model<TAB>dataset' lines (e.g. GPE<TAB>LOC)", path=path)
    return out
