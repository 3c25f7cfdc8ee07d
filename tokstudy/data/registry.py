"""Load the shared corpora by name: ``load_dataset("conll2003", "test")``.

Each entry knows its reader, file layout, splits, task and languages, so callers
never spell out file names. The corpora are looked up at the data location
(``data_dir`` argument, else ``$TOKSTUDY_DATA``, else ``data/corpora``; see
:mod:`tokstudy.datalocation`). Split names: ``train``, ``dev``, ``test`` (``valid``,
``val`` and ``validation`` are accepted for ``dev``); ``ner_ja_wikipedia`` also has ``all``.

Per-corpus decisions:

- ``conll2003``: files are IOB1 (``eng.train``/``eng.testa``/``eng.testb``), returned as IOB2.
- ``conll2002_es``: IOB2 with three ``I-`` tags after ``O`` in the original data (one
  per split: esp.train line 221619, esp.testa line 30882, esp.testb line 9291). The
  registry reads it **leniently by default**: each becomes ``B-`` (as in every
  published conversion), ``Dataset.repaired`` is 1 per split and
  ``metadata["note"]`` says so. ``lenient=False`` raises at the place.
- ``wikiann``: ``language`` is required (de en es nl pl ru); ``dev`` is the ``val`` file.
- ``ner_ja_wikipedia``: no official splits. Each record goes to a split by its page id:
  ``int(sha1(curid).hexdigest(), 16) % 10`` = 0..7 -> train, 8 -> dev, 9 -> test
  (about 80/10/10; sentences of one page stay together, so no page leaks across splits,
  and the assignment never changes when records are added). ``all`` gives every record.
- ``snips``, ``atis``: ``dev`` is the ``valid`` directory; ``Sentence.label`` is the intent.
- ``sst2``: train and dev only (the GLUE test set has no labels).

>>> sorted(list_datasets())[:3]
['atis', 'conll2002_es', 'conll2003']
>>> dataset_info("wikiann").languages
('de', 'en', 'es', 'nl', 'pl', 'ru')
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

from tokstudy.data.types import Dataset
from tokstudy.datalocation import corpus_dir
from tokstudy.errors import DataNotFoundError

SPLIT_ALIASES = {"valid": "dev", "val": "dev", "validation": "dev", "testa": "dev", "testb": "test"}


@dataclass(frozen=True)
class DatasetInfo:
    """What the registry knows about one corpus.

    Attributes:
        name: registry name, as passed to :func:`load_dataset`.
        task: ``"ner"``, ``"slot"`` (slot filling with an intent label) or ``"classification"``.
        languages: language codes available; a corpus with several needs ``language=``.
        splits: split names accepted by :func:`load_dataset` (aliases aside).
        corpus: sub-directory key in :data:`tokstudy.datalocation.CORPORA`.
        default_lenient: whether forbidden tags are repaired (and counted) by default.
        description: one line for listings.
    """

    name: str
    task: str
    languages: tuple[str, ...]
    splits: tuple[str, ...]
    corpus: str
    default_lenient: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if self.task not in ("ner", "slot", "classification"):
            raise ValueError(f"{self.name}: task {self.task!r} must be ner, slot or classification")


def _find(directory: Path, stem: str) -> Path:
    """``stem`` or ``stem.gz`` inside ``directory`` (downloads may be either)."""
    for candidate in (directory / stem, directory / f"{stem}.gz"):
        if candidate.is_file():
            return candidate
    raise DataNotFoundError(f"{directory / stem}[.gz]: file not found")


def _conll2003(d: Path, split: str, language: str, lenient: bool) -> Dataset:
    from tokstudy.data.conll import read_conll

    stem = {"train": "eng.train", "dev": "eng.testa", "test": "eng.testb"}[split]
    return read_conll(_find(d, stem), name="conll2003", language=language, split=split, lenient=lenient)


def _conll2002_es(d: Path, split: str, language: str, lenient: bool) -> Dataset:
    from tokstudy.data.conll import read_conll

    stem = {"train": "esp.train", "dev": "esp.testa", "test": "esp.testb"}[split]
    ds = read_conll(_find(d, stem), scheme="IOB2", name="conll2002_es", language=language, split=split, lenient=lenient)
    if ds.repaired:
        note = (
            f"{ds.repaired} I- tag(s) after O in the original data were read as B- (lenient mode); "
            "pass lenient=False to get an error at the place instead"
        )
        ds = ds.with_meta(metadata={**ds.metadata, "note": note})
    return ds


def _wikiann(d: Path, split: str, language: str, lenient: bool) -> Dataset:
    from tokstudy.data.conll import read_conll

    file_split = {"train": "train", "dev": "val", "test": "test"}[split]
    return read_conll(
        _find(d, f"{language}.{file_split}.tsv"),
        scheme="IOB2",
        name="wikiann",
        language=language,
        split=split,
        lenient=lenient,
    )


def ja_split_of(curid: str) -> str:
    """The split of a ``ner_ja_wikipedia`` page id: sha1-based, about 80/10/10.

    >>> ja_split_of("3572156") in ("train", "dev", "test")
    True
    """
    bucket = int(hashlib.sha1(curid.encode("utf-8")).hexdigest(), 16) % 10
    return "train" if bucket < 8 else ("dev" if bucket == 8 else "test")


@lru_cache(maxsize=2)
def _ner_ja_all(path: Path, _stamp: tuple[int, int], language: str) -> Dataset:
    """The whole file, parsed once per process for train/dev/test (keyed on mtime and size)."""
    from tokstudy.data.jsonl import read_char_span_json

    return read_char_span_json(path, name="ner_ja_wikipedia", language=language, split="all")


def _ner_ja(d: Path, split: str, language: str, lenient: bool) -> Dataset:
    path = _find(d, "ner.json").resolve()
    stat = path.stat()
    ds = _ner_ja_all(path, (stat.st_mtime_ns, stat.st_size), language)
    if split == "all":
        return ds.with_meta(metadata=dict(ds.metadata))  # callers may edit metadata: never the cached dict
    curids = ds.metadata["curids"]
    keep = [i for i, c in enumerate(curids) if ja_split_of(c) == split]
    sentences = tuple(replace(ds.sentences[i], sent_id=k) for k, i in enumerate(keep))
    meta = {
        **ds.metadata,
        "curids": tuple(curids[i] for i in keep),
        "records": tuple(ds.metadata["records"][i] for i in keep),
        "split_rule": "int(sha1(curid).hexdigest(), 16) % 10: 0-7 train, 8 dev, 9 test",
    }
    return ds.with_meta(sentences=sentences, split=split, metadata=meta)


def _slu(corpus: str) -> Callable[[Path, str, str, bool], Dataset]:
    def load(d: Path, split: str, language: str, lenient: bool) -> Dataset:
        from tokstudy.data.slu import read_slu

        sub = {"train": "train", "dev": "valid", "test": "test"}[split]
        return read_slu(d / sub, name=corpus, language=language, split=split, lenient=lenient)

    return load


def _sst2(d: Path, split: str, language: str, lenient: bool) -> Dataset:
    from tokstudy.data.tsv import read_tsv

    return read_tsv(_find(d, f"{split}.tsv"), name="sst2", language=language, split=split)


_TRAIN_DEV_TEST = ("train", "dev", "test")
_REGISTRY: dict[str, tuple[DatasetInfo, Callable[[Path, str, str, bool], Dataset]]] = {
    info.name: (info, loader)
    for info, loader in [
        (
            DatasetInfo(
                "conll2003",
                "ner",
                ("en",),
                _TRAIN_DEV_TEST,
                "conll2003",
                description="CoNLL-2003 English NER (PER/LOC/ORG/MISC), IOB1 files read as IOB2",
            ),
            _conll2003,
        ),
        (
            DatasetInfo(
                "conll2002_es",
                "ner",
                ("es",),
                _TRAIN_DEV_TEST,
                "conll2002_es",
                default_lenient=True,
                description="CoNLL-2002 Spanish NER (PER/LOC/ORG/MISC); 3 I-after-O tags repaired by default",
            ),
            _conll2002_es,
        ),
        (
            DatasetInfo(
                "wikiann",
                "ner",
                ("de", "en", "es", "nl", "pl", "ru"),
                _TRAIN_DEV_TEST,
                "wikiann",
                description="WikiANN / PAN-X (PER/LOC/ORG), Rahimi et al. balanced splits",
            ),
            _wikiann,
        ),
        (
            DatasetInfo(
                "ner_ja_wikipedia",
                "ner",
                ("ja",),
                _TRAIN_DEV_TEST + ("all",),
                "ner_ja_wikipedia",
                description="Japanese Wikipedia NER (Stockmark, 8 types), pre-tokenised by script; "
                "sha1(curid) 80/10/10 splits",
            ),
            _ner_ja,
        ),
        (
            DatasetInfo(
                "snips",
                "slot",
                ("en",),
                _TRAIN_DEV_TEST,
                "snips",
                description="SNIPS slot filling (IOB2 tags) + intent (Sentence.label)",
            ),
            _slu("snips"),
        ),
        (
            DatasetInfo(
                "atis",
                "slot",
                ("en",),
                _TRAIN_DEV_TEST,
                "atis",
                description="ATIS slot filling (IOB2 tags) + intent (Sentence.label)",
            ),
            _slu("atis"),
        ),
        (
            DatasetInfo(
                "sst2",
                "classification",
                ("en",),
                ("train", "dev"),
                "sst2",
                description="GLUE SST-2 sentiment (label 0/1), whitespace words",
            ),
            _sst2,
        ),
    ]
}


def list_datasets() -> list[str]:
    """Names :func:`load_dataset` accepts, in registry order."""
    return list(_REGISTRY)


def dataset_info(name: str) -> DatasetInfo:
    """Metadata of a registered corpus (task, languages, splits, ...)."""
    try:
        return _REGISTRY[name][0]
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
        language: required for corpora with several languages (``wikiann``); for the
            others it must be omitted or equal the corpus language.
        data_dir: the folder that holds the corpora (overrides ``$TOKSTUDY_DATA``).
        lenient: repair forbidden tags and count them in ``Dataset.repaired``;
            ``None`` takes the corpus default (only ``conll2002_es`` is lenient).

    Example (needs the corpora at the data location)::

        >>> ds = load_dataset("conll2003", "dev")  # doctest: +SKIP
        >>> len(ds), ds.n_words, ds.split  # doctest: +SKIP
        (3250, 51362, 'dev')
    """
    info, loader = _REGISTRY[dataset_info(name).name]
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
    return loader(directory, canonical, language, info.default_lenient if lenient is None else lenient)
