"""Dataset names as users write them: ``NAME``, ``NAME:SPLIT``, ``NAME:LANGUAGE:SPLIT``, and ``*``.

Every place that takes a registry dataset by name (the CLI's ``--dataset``, the Python API, a study
configuration, the app) reads it here. ``*`` as the language stands for every language whose file is
present at the data location, ``*`` as the split for every split present:
``masakhaner2:*:test`` is the MasakhaNER 2.0 test set of each of the 20 languages,
``multiconer2022:*:train`` the 6 MultiCoNER train sets (the other 5 languages have none).

>>> parse_dataset_name("masakhaner2:yor:test")
('masakhaner2', 'yor', 'test')
>>> expand_dataset_name("conll2003:dev")  # no wildcard: the name itself
['conll2003:dev']
"""

from __future__ import annotations

import os

from tokstudy.data.registry import SPLIT_ALIASES, available_datasets, dataset_info, has_files, load_dataset
from tokstudy.data.types import Dataset
from tokstudy.datalocation import corpus_dir, data_root
from tokstudy.errors import DataNotFoundError, UsageError

#: the wildcard that stands for every language (or split) present
WILDCARD = "*"


def parse_dataset_name(spec: str, *, language: str | None = None) -> tuple[str, str | None, str]:
    """``(name, language, split)`` of a dataset name ``NAME``, ``NAME:SPLIT`` or ``NAME:LANGUAGE:SPLIT``.

    The split defaults to ``test``; the language to ``language`` unless the name gives one.

    >>> parse_dataset_name("wikiann:ru:test"), parse_dataset_name("conll2003:dev"), parse_dataset_name("sst2")
    (('wikiann', 'ru', 'test'), ('conll2003', None, 'dev'), ('sst2', None, 'test'))
    """
    parts = spec.split(":")
    if len(parts) > 3:
        raise UsageError(
            f"dataset spec {spec!r} has {len(parts)} parts; expected NAME, NAME:SPLIT or "
            "NAME:LANGUAGE:SPLIT (e.g. conll2003:test, wikiann:ru:test)"
        )
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    return parts[0], language, parts[1] if len(parts) == 2 else "test"


def expand_dataset_name(spec: str, *, data_dir: str | os.PathLike | None = None) -> list[str]:
    """The concrete names a dataset name stands for: ``*`` as its language (or split) is every one present.

    A name without ``*`` is returned as it is. The names come in registry order (languages, then splits);
    a wildcard that matches nothing raises :class:`DataNotFoundError` saying what is there.

    Example (needs the corpora at the data location)::

        >>> expand_dataset_name("multiconer2022:*:train")  # doctest: +SKIP
        ['multiconer2022:de:train', 'multiconer2022:en:train', 'multiconer2022:es:train', ...]
        >>> expand_dataset_name("conll2003:test")
        ['conll2003:test']
    """
    if WILDCARD not in spec:
        return [spec]
    name, language, split = parse_dataset_name(spec)
    info = dataset_info(name)
    several = len(info.languages) > 1
    if language is None and several:
        raise UsageError(f"{spec!r}: {name} has several languages; write {name}:*:{split} for all of them")
    splits = [s for s in info.splits if s != "all"] if split == WILDCARD else [SPLIT_ALIASES.get(split, split)]
    if splits[0] not in info.splits:
        raise UsageError(f"{spec!r}: {name} has no split {split!r}; expected one of {list(info.splits)}")
    languages = info.languages if language in (WILDCARD, None) else (language,)
    if language not in (WILDCARD, None) and language not in info.languages:
        raise UsageError(f"{spec!r}: {name} has no language {language!r}; expected one of {list(info.languages)}")
    corpus_dir(info.corpus, data_dir)  # a missing corpus says where it was looked for
    names = [
        f"{name}:{lang}:{s}" if several else f"{name}:{s}"
        for lang in languages
        for s in splits
        if has_files(name, s, lang, data_dir=data_dir)
    ]
    if not names:
        raise DataNotFoundError(f"{spec!r} matches no file at {data_root(data_dir)}; {_listing(name, data_dir)}")
    return names


def _listing(name: str, data_dir: str | os.PathLike | None) -> str:
    """What of ``name`` is present, for messages: ``present: de:train, de:dev, ...``."""
    present = [
        f"{lang}:{split}" if lang else split for n, lang, split in available_datasets(data_dir=data_dir) if n == name
    ]
    return "present: " + (", ".join(present) if present else "nothing")


def load_datasets_named(
    spec: str, *, data_dir: str | os.PathLike | None = None, lenient: bool | None = None
) -> list[Dataset]:
    """Every dataset a name stands for (:func:`expand_dataset_name`), read by :func:`load_dataset`.

    Example (needs the corpora at the data location)::

        >>> [ds.language for ds in load_datasets_named("multiconer2022:*:train")]  # doctest: +SKIP
        ['de', 'en', 'es', 'ko', 'nl', 'tr']
    """
    out = []
    for concrete in expand_dataset_name(spec, data_dir=data_dir):
        name, language, split = parse_dataset_name(concrete)
        out.append(load_dataset(name, split, language=language, data_dir=data_dir, lenient=lenient))
    return out
