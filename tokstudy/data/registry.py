"""Load the shared corpora by name: ``load_dataset("conll2003", "test")``.

Each entry knows its reader, file layout, splits, task and languages, so callers
never spell out file names. The corpora are looked up at the data location
(``data_dir`` argument, else ``$TOKSTUDY_DATA``, else ``data/corpora``; see
:mod:`tokstudy.datalocation`). Split names: ``train``, ``dev``, ``test`` (``valid``,
``val`` and ``validation`` are accepted for ``dev``); ``ner_ja_wikipedia`` also has ``all``.

The per-corpus decisions (IOB1 files, repaired tags, split rules) are listed, and taken, in
:mod:`tokstudy.data.corpora`. Names as users write them (``masakhaner2:yor:test``, and ``*`` for every
language present: ``masakhaner2:*:test``) are read by :mod:`tokstudy.data.names`.

>>> sorted(list_datasets())[:3]
['atis', 'conll2002_es', 'conll2003']
>>> dataset_info("wikiann").languages
('de', 'en', 'es', 'nl', 'pl', 'ru')
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tokstudy.data.corpora import (
    Loader,
    load_conll2002_es,
    load_conll2003,
    load_masakhaner2,
    load_massive,
    load_multiconer,
    load_ner_ja,
    load_sst2,
    load_wikiann,
    masakhaner2_stem,
    massive_stem,
    multiconer_stem,
    slu_loader,
    wikiann_stem,
)
from tokstudy.data.types import Dataset
from tokstudy.datalocation import CORPORA, corpus_dir, data_root
from tokstudy.errors import DataNotFoundError

SPLIT_ALIASES = {"valid": "dev", "val": "dev", "validation": "dev", "testa": "dev", "testb": "test"}


class DatasetTask(str, enum.Enum):
    """What a registry dataset's labels are for; equal to its spelling in configs and listings (``"ner"``).

    >>> DatasetTask("ner") is DatasetTask.NER, DatasetTask.NER == "ner", f"{DatasetTask.SLOT}"
    (True, True, 'slot')
    """

    #: a BIO tag per word
    NER = "ner"
    #: slot tags per word, and an intent label per sentence
    SLOT = "slot"
    #: a label per sentence
    CLASSIFICATION = "classification"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


#: every task's spelling
TASKS = frozenset(t.value for t in DatasetTask)
#: the tasks whose words carry tags
TAGGED_TASKS = (DatasetTask.NER, DatasetTask.SLOT)


@dataclass(frozen=True)
class DatasetInfo:
    """What the registry knows about one corpus.

    Attributes:
        name: registry name, as passed to :func:`load_dataset`.
        task: ``"ner"``, ``"slot"`` (slot filling with an intent label) or ``"classification"``.
        languages: language codes the corpus has; a corpus with several needs ``language=`` (which of
            them are present at the data location: :func:`available_languages`).
        splits: split names accepted by :func:`load_dataset` (aliases aside).
        corpus: sub-directory key in :data:`tokstudy.datalocation.CORPORA`.
        default_lenient: whether forbidden tags are repaired (and counted) by default.
        description: one line for listings.
        scheme: the tag scheme of the files as distributed (``IOB1``, ``IOB2``); ``None`` where the
            labels are no tags in a scheme (character spans, sentence labels). Every reader stores IOB2.
            A registry dataset is read in its own scheme: :func:`tokstudy.inputs.load_datasets` refuses
            another ``scheme`` for it (or, beside dataset files, applies that scheme to the files only).
    """

    name: str
    task: DatasetTask
    languages: tuple[str, ...]
    splits: tuple[str, ...]
    corpus: str
    default_lenient: bool = False
    description: str = ""
    scheme: str | None = "IOB2"

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"{self.name}: task {self.task!r} must be ner, slot or classification")
        object.__setattr__(self, "task", DatasetTask(self.task))


@dataclass(frozen=True)
class _Corpus:
    """A registry entry: what is known of the corpus, its reader, and where each file is."""

    info: DatasetInfo
    load: Loader
    #: the file (without ``.gz``) of a split in a language, for corpora with a file per language and split;
    #: ``None`` where the corpus folder holds every split (its presence is the folder's)
    stem: Callable[[str, str], str] | None = None


_TRAIN_DEV_TEST = ("train", "dev", "test")
MULTICONER_LANGUAGES = ("bn", "de", "en", "es", "fa", "hi", "ko", "nl", "ru", "tr", "zh")
MASAKHANER2_LANGUAGES = (
    "bam",
    "bbj",
    "ewe",
    "fon",
    "hau",
    "ibo",
    "kin",
    "lug",
    "luo",
    "mos",
    "nya",
    "pcm",
    "sna",
    "swa",
    "tsn",
    "twi",
    "wol",
    "xho",
    "yor",
    "zul",
)
_CORPORA = (
    _Corpus(
        DatasetInfo(
            "conll2003",
            DatasetTask.NER,
            ("en",),
            _TRAIN_DEV_TEST,
            "conll2003",
            description="CoNLL-2003 English NER (PER/LOC/ORG/MISC), IOB1 files read as IOB2",
            scheme="IOB1",
        ),
        load_conll2003,
    ),
    _Corpus(
        DatasetInfo(
            "conll2002_es",
            DatasetTask.NER,
            ("es",),
            _TRAIN_DEV_TEST,
            "conll2002_es",
            default_lenient=True,
            description="CoNLL-2002 Spanish NER (PER/LOC/ORG/MISC); 3 I-after-O tags repaired by default",
        ),
        load_conll2002_es,
    ),
    _Corpus(
        DatasetInfo(
            "wikiann",
            DatasetTask.NER,
            ("de", "en", "es", "nl", "pl", "ru"),
            _TRAIN_DEV_TEST,
            "wikiann",
            description="WikiANN / PAN-X (PER/LOC/ORG), Rahimi et al. balanced splits",
        ),
        load_wikiann,
        wikiann_stem,
    ),
    _Corpus(
        DatasetInfo(
            "ner_ja_wikipedia",
            DatasetTask.NER,
            ("ja",),
            _TRAIN_DEV_TEST + ("all",),
            "ner_ja_wikipedia",
            description="Japanese Wikipedia NER (Stockmark, 8 types), pre-tokenised by script; "
            "sha1(curid) 80/10/10 splits",
            scheme=None,
        ),
        load_ner_ja,
    ),
    _Corpus(
        DatasetInfo(
            "snips",
            DatasetTask.SLOT,
            ("en",),
            _TRAIN_DEV_TEST,
            "snips",
            description="SNIPS slot filling (IOB2 tags) + intent (Sentence.label)",
        ),
        slu_loader("snips"),
    ),
    _Corpus(
        DatasetInfo(
            "atis",
            DatasetTask.SLOT,
            ("en",),
            _TRAIN_DEV_TEST,
            "atis",
            description="ATIS slot filling (IOB2 tags) + intent (Sentence.label)",
        ),
        slu_loader("atis"),
    ),
    _Corpus(
        DatasetInfo(
            "sst2",
            DatasetTask.CLASSIFICATION,
            ("en",),
            ("train", "dev"),
            "sst2",
            description="GLUE SST-2 sentiment (label 0/1), whitespace words",
            scheme=None,
        ),
        load_sst2,
    ),
    _Corpus(
        DatasetInfo(
            "multiconer2022",
            DatasetTask.NER,
            MULTICONER_LANGUAGES,
            ("train", "dev"),
            "multiconer2022",
            description="MultiCoNER 2022 complex NER (PER/LOC/GRP/CORP/PROD/CW), lower-cased; dev in 11 languages, "
            "train in 6",
        ),
        load_multiconer,
        multiconer_stem,
    ),
    _Corpus(
        DatasetInfo(
            "masakhaner2",
            DatasetTask.NER,
            MASAKHANER2_LANGUAGES,
            _TRAIN_DEV_TEST,
            "masakhaner2",
            default_lenient=True,
            description="MasakhaNER 2.0 (PER/ORG/LOC/DATE), 20 African languages; 51 I- tags that continue no "
            "entity repaired by default",
        ),
        load_masakhaner2,
        masakhaner2_stem,
    ),
    _Corpus(
        DatasetInfo(
            "massive",
            DatasetTask.SLOT,
            ("en-US",),
            _TRAIN_DEV_TEST,
            "massive",
            description="MASSIVE 1.0 en-US slot filling (IOB2 tags from [slot : words]) + intent (Sentence.label)",
        ),
        load_massive,
        massive_stem,
    ),
)
_REGISTRY: dict[str, _Corpus] = {c.info.name: c for c in _CORPORA}


def list_datasets() -> list[str]:
    """Names :func:`load_dataset` accepts, in registry order."""
    return list(_REGISTRY)


def dataset_info(name: str) -> DatasetInfo:
    """Metadata of a registered corpus (task, languages, splits, ...)."""
    try:
        return _REGISTRY[name].info
    except KeyError:
        raise KeyError(f"unknown dataset {name!r}; expected one of {list_datasets()}") from None


def load_dataset(
    name: str,
    split: str = "test",
    *,
    language: str | None = None,
    data_dir: str | os.PathLike | None = None,
    lenient: bool | None = None,
) -> Dataset:
    """Read split ``split`` of corpus ``name`` from the data location.

    Args:
        name: one of :func:`list_datasets`.
        split: ``train``, ``dev`` (or ``valid``/``val``/``validation``), ``test``, or
            ``all`` where the corpus lists it.
        language: required for corpora with several languages (``wikiann``, ``multiconer2022``,
            ``masakhaner2``); for the others it must be omitted or equal the corpus language.
        data_dir: the folder that holds the corpora (overrides ``$TOKSTUDY_DATA``).
        lenient: repair forbidden tags and count them in ``Dataset.repaired``;
            ``None`` takes the corpus default (``conll2002_es`` and ``masakhaner2`` are lenient).
            Only ``lenient=True`` itself also skips lines whose field count differs from the file's (counted in
            ``Dataset.repair_log.skipped``): they drop a word, so that is never a default.

    Example (needs the corpora at the data location)::

        >>> ds = load_dataset("conll2003", "dev")  # doctest: +SKIP
        >>> len(ds), ds.n_words, ds.split  # doctest: +SKIP
        (3250, 51362, 'dev')
    """
    corpus = _REGISTRY[dataset_info(name).name]
    info = corpus.info
    canonical = SPLIT_ALIASES.get(split, split)
    if canonical not in info.splits:
        raise ValueError(f"{name} has no split {split!r}; expected one of {list(info.splits)}")
    if language is None:
        if len(info.languages) > 1:
            raise ValueError(f"{name} needs language=, one of {list(info.languages)}")
        language = info.languages[0]
    elif language not in info.languages:
        raise ValueError(f"{name} has no language {language!r}; expected one of {list(info.languages)}")
    directory = corpus_dir(info.corpus, data_dir)
    if corpus.stem is not None and not _present(directory, corpus.stem(canonical, language)):
        present = available_languages(name, canonical, data_dir=data_dir)
        raise DataNotFoundError(
            f"{directory / corpus.stem(canonical, language)}[.gz]: file not found; {name} {canonical} is there in "
            + (", ".join(present) if present else "no language")
        )
    repair = info.default_lenient if lenient is None else lenient
    return corpus.load(directory, canonical, language, repair, lenient is True)


def _present(directory: Path, stem: str) -> bool:
    return (directory / stem).is_file() or (directory / f"{stem}.gz").is_file()


def has_files(name: str, split: str, language: str | None = None, *, data_dir: str | os.PathLike | None = None) -> bool:
    """Whether split ``split`` of ``name`` (in ``language``) is present at the data location.

    >>> has_files("wikiann", "test", "de", data_dir="/nonexistent")
    False
    """
    corpus = _REGISTRY[dataset_info(name).name]
    split = SPLIT_ALIASES.get(split, split)
    directory = data_root(data_dir) / CORPORA.get(corpus.info.corpus, corpus.info.corpus)
    if split not in corpus.info.splits or not directory.is_dir():
        return False
    if language is None:
        language = corpus.info.languages[0]
    if language not in corpus.info.languages:
        return False
    return corpus.stem is None or _present(directory, corpus.stem(split, language))


def available_languages(name: str, split: str, *, data_dir: str | os.PathLike | None = None) -> list[str]:
    """The languages of ``name`` whose ``split`` is present at the data location, in registry order."""
    return [lang for lang in dataset_info(name).languages if has_files(name, split, lang, data_dir=data_dir)]


def available_datasets(*, data_dir: str | os.PathLike | None = None) -> list[tuple[str, str | None, str]]:
    """``(name, language, split)`` of every registry dataset present at the data location (``language`` is
    ``None`` for corpora of one language): what a listing offers, with no entry whose file is missing."""
    out = []
    for name, corpus in _REGISTRY.items():
        languages = corpus.info.languages if len(corpus.info.languages) > 1 else (None,)
        for split in corpus.info.splits:
            out += [(name, lang, split) for lang in languages if has_files(name, split, lang, data_dir=data_dir)]
    return out
