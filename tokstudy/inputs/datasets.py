"""Dataset specs -> datasets: a registry name, a file or a folder, as the user typed it.

Dataset specs:

* a registry name with its split: ``conll2003:test``, ``wikiann:ru:test``
  (``name:language:split``), ``conll2003`` alone means its test split; ``*`` as the language
  (or split) is every one present: ``masakhaner2:*:test`` (:mod:`tokstudy.data.names`);
* ``hf:NAME[@CONFIG]:SPLIT``, a Hugging Face dataset (:mod:`tokstudy.data.hub`);
* a file path: ``data/my.conll`` (read as :class:`~tokstudy.data.formats.FileOptions` says);
  ``path.conll@de`` sets the language;
* a folder holding ``seq.in``/``seq.out``/``label`` (SNIPS/ATIS layout).

Files with the same name in different folders (``amh/test.txt``, ``swa/test.txt``) get
names made distinct by their folders (``amh/test``, ``swa/test``).
"""

from __future__ import annotations

import enum
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tokstudy.data.formats import FileOptions
from tokstudy.data.hub import is_hf_spec, load_hf_dataset, parse_hf_spec
from tokstudy.data.names import WILDCARD, expand_dataset_name, parse_dataset_name
from tokstudy.data.readers import read_dataset_file
from tokstudy.data.registry import DatasetTask, dataset_info, list_datasets, load_dataset
from tokstudy.data.schemes import normalize_scheme
from tokstudy.data.types import Dataset
from tokstudy.errors import DataFormatError, DataNotFoundError, UsageError
from tokstudy.inputs.folder_names import names_by_folder
from tokstudy.inputs.request import SchemeNotAppliedWarning

#: what a spec that names no existing file must not look like to be read as a registry name
_FILE_SUFFIXES = (".conll", ".txt", ".gz", ".tsv", ".iob", ".bio", ".json", ".jsonl")


class SpecKind(enum.Enum):
    """Where a dataset spec points."""

    #: ``hf:NAME[@CONFIG]:SPLIT``, a Hugging Face dataset
    HUB = "hub"
    #: a file or folder that exists
    FILE = "file"
    #: a path (a folder separator, a data file's suffix) where nothing exists
    MISSING_FILE = "missing file"
    #: a name of the registry, with its language and split
    REGISTRY = "registry"
    #: none of these
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class SpecPlace:
    """Where a dataset spec points (:func:`locate`): its kind, and for a path, the path and its ``@LANGUAGE``."""

    kind: SpecKind
    path: Path | None = None
    language: str | None = None


def locate(spec: str) -> SpecPlace:
    """File, ``hf:`` or registry name? A file or folder that exists wins over a registry name of the same text.

    >>> [locate(s).kind.value for s in ("hf:conll2003:test", "conll2003:test", "no/such.conll@de", "nope")]
    ['hub', 'registry', 'missing file', 'unknown']
    >>> where = locate("no/such.conll@de"); str(where.path), where.language
    ('no/such.conll', 'de')
    """
    if is_hf_spec(spec):
        return SpecPlace(SpecKind.HUB)
    path_part, at, lang = spec.rpartition("@")
    file_spec, file_lang = (path_part, lang) if at and "/" not in lang else (spec, None)
    p = Path(file_spec).expanduser()
    if p.is_file() or p.is_dir():
        return SpecPlace(SpecKind.FILE, p, file_lang)
    if any(c in spec for c in "/\\") or p.suffix in _FILE_SUFFIXES:
        return SpecPlace(SpecKind.MISSING_FILE, p, file_lang)
    return SpecPlace(SpecKind.REGISTRY if spec.split(":", 1)[0] in list_datasets() else SpecKind.UNKNOWN)


@dataclass(frozen=True)
class DatasetsRead:
    """The datasets of a list of specs, and what the reader has to tell about them.

    Attributes:
        datasets: one per concrete spec (wildcards expanded), names made distinct.
        warnings: sentences for the user (a ``--scheme`` that registry datasets do not take), not printed.
    """

    datasets: list[Dataset]
    warnings: list[str]


def load_dataset_spec(
    spec: str,
    *,
    data_dir: str | os.PathLike | None = None,
    format: str = "auto",
    language: str | None = None,
    options: FileOptions | None = None,
) -> Dataset:
    """Read one dataset given as a registry spec, a file or a folder (see the module docstring).

    ``options`` says how files are read (its ``format`` wins over ``format``).
    """
    options = options or FileOptions(format=format)
    where = locate(spec)
    if where.kind is SpecKind.HUB:
        name, config, split = parse_hf_spec(spec)
        return load_hf_dataset(name, split, config=config, language=language)
    if where.kind is SpecKind.FILE:
        return read_dataset_file(where.path, options, language=where.language or language or "und")
    if where.kind is SpecKind.MISSING_FILE:
        raise DataNotFoundError(f"{where.path}: dataset file not found")
    if where.kind is SpecKind.UNKNOWN:
        raise DataNotFoundError(
            f"{spec!r} is neither a file nor a known dataset; known datasets: {', '.join(list_datasets())} "
            "(write NAME:SPLIT or NAME:LANGUAGE:SPLIT, e.g. conll2003:test, wikiann:ru:test, masakhaner2:*:test)"
        )
    name, lang, split = parse_dataset_name(spec, language=language)
    try:
        return load_dataset(name, split, language=lang, data_dir=data_dir, lenient=options.lenient)
    except ValueError as exc:
        raise DataFormatError(f"dataset {spec!r}: {exc}") from None


def read_datasets(specs: Sequence[str], **kwargs) -> DatasetsRead:
    """Every dataset of ``specs`` (see :func:`load_dataset_spec`, which takes ``kwargs``), files with the same
    name made distinct, and the warnings for the user as sentences.

    A registry name with ``*`` stands for every dataset it matches (:func:`~tokstudy.data.names.expand_dataset_name`).
    Two files whose names and splits coincide (``amh/test.txt``, ``swa/test.txt``) are named by
    as many of their folders as it takes (``amh/test``, ``swa/test``); the same file twice is refused.
    """
    if not specs:
        raise DataFormatError("no dataset given; pass --dataset NAME:SPLIT or --dataset PATH")
    data_dir = kwargs.get("data_dir")
    concrete = [name for s in specs for name in (expand_dataset_name(s, data_dir=data_dir) if _is_wildcard(s) else [s])]
    options = kwargs.get("options")
    note = scheme_note(concrete, options.scheme) if options is not None and options.scheme != "auto" else None
    datasets = [load_dataset_spec(s, **kwargs) for s in concrete]
    return DatasetsRead(distinct_names(datasets), [note] if note else [])


def load_datasets(specs: Sequence[str], **kwargs) -> list[Dataset]:
    """The datasets of :func:`read_datasets`, its warnings issued as :class:`SchemeNotAppliedWarning`
    (the Python API's way to say them; the CLI prints them itself)."""
    read = read_datasets(specs, **kwargs)
    for note in read.warnings:
        warnings.warn(note, SchemeNotAppliedWarning, stacklevel=2)
    return read.datasets


def scheme_note(specs: Sequence[str], scheme: str) -> str | None:
    """What a tag ``scheme`` (``--scheme``) means beside registry datasets, which are read in the scheme their
    files are in (:attr:`~tokstudy.data.registry.DatasetInfo.scheme`): None when every one agrees.

    A ``scheme`` that contradicts a registry dataset's is refused (:class:`UsageError`) when only registry
    datasets are given, and stated (the sentence returned) when files beside them take it.
    """
    scheme = normalize_scheme(scheme)
    registry = [s for s in specs if _registry_name(s)]
    own = {s: dataset_info(_registry_name(s)).scheme for s in registry}
    differ = [
        f"{s} ({own[s] + ' files' if own[s] else 'no tag scheme: ' + _no_scheme_reason(s)})"
        for s in own
        if own[s] != scheme
    ]
    if not differ:
        return None
    listing = ", ".join(differ)
    if len(registry) == len(specs):
        raise UsageError(
            f"--scheme {scheme} does not apply to registry datasets, which are read in the scheme of their files: "
            f"{listing}; --scheme is for dataset files given as paths: leave it out"
        )
    return (
        f"--scheme {scheme} applies to the dataset files given as paths; the registry datasets keep their own: "
        f"{listing}"
    )


def _registry_name(spec: str) -> str | None:
    """The registry name of a spec read from the registry (:func:`locate`), else None."""
    return spec.split(":", 1)[0] if locate(spec).kind is SpecKind.REGISTRY else None


def _no_scheme_reason(spec: str) -> str:
    task = dataset_info(_registry_name(spec)).task
    return "sentence labels" if task is DatasetTask.CLASSIFICATION else "character spans"


def _is_wildcard(spec: str) -> bool:
    """Whether ``spec`` is a registry name with ``*`` (``masakhaner2:*:test``), not a file that exists."""
    return WILDCARD in spec and locate(spec).kind is SpecKind.REGISTRY


def distinct_names(datasets: Sequence[Dataset]) -> list[Dataset]:
    """Rename file datasets whose ``(name, language, split)`` repeat after their folders.

    >>> from tokstudy.data.types import Sentence
    >>> mk = lambda src: Dataset((Sentence(("a",), ("O",)),), name="test", split="test", source=src)
    >>> [d.name for d in distinct_names([mk("/d/amh/test.txt"), mk("/d/swa/test.txt")])]
    ['amh/test', 'swa/test']
    """
    out = list(datasets)
    keys = [(d.name, d.language, d.split) for d in out]
    for key in set(k for k in keys if keys.count(k) > 1):
        idx = [i for i, k in enumerate(keys) if k == key]
        sources = [Path(out[i].source).resolve() if out[i].source else None for i in idx]
        if None in sources or len(set(sources)) < len(sources):
            same = next(s for s in sources if sources.count(s) > 1) if None not in sources else key[0]
            raise UsageError(f"dataset {same} is given twice; give each dataset once")
        for i, name in zip(idx, names_by_folder(key[0], sources)):
            out[i] = out[i].with_meta(name=name)
    return out
