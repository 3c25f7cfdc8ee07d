"""How each shared corpus is read: its files, and the decisions taken for it.

Each ``load_<corpus>(directory, split, language, lenient, skip_malformed)`` reads one split of one
corpus from its folder at the data location; :mod:`tokstudy.data.registry` names them and checks
the split and language first. A ``<corpus>_stem(split, language)`` gives the file of a split in a
language (without ``.gz``) where a corpus has one file per language.

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
- ``multiconer2022``: ``language`` required (bn de en es fa hi ko nl ru tr zh); dev in all 11, train in
  de en es ko nl tr only (``<lang>_<split>.conll``); the ``# id ...`` header lines are skipped.
- ``masakhaner2``: ``language`` required (20 African languages); read **leniently by default** like
  ``conll2002_es``: 51 ``I-`` tags in 17 of the 60 files continue no entity and become ``B-``
  (``Dataset.repaired``, ``metadata["note"]``). The 2 single-field lines of ``xho_train`` are refused,
  named with file and line, unless ``lenient=True`` is passed: then they are skipped and counted
  (``Dataset.repair_log.skipped``, ``metadata["note"]``).
- ``massive``: MASSIVE 1.0 ``en-US.jsonl``; one file holds the three partitions; ``Sentence.label``
  is the intent, tags the slots as IOB2 (:mod:`tokstudy.data.massive`).

"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

from tokstudy.data.conll import read_conll
from tokstudy.data.jsonl import read_char_span_json
from tokstudy.data.massive import read_massive
from tokstudy.data.slu import read_slu
from tokstudy.data.tsv import read_tsv
from tokstudy.data.types import Dataset
from tokstudy.errors import DataNotFoundError

#: a corpus reader: ``(directory, split, language, lenient, skip_malformed) -> Dataset``
Loader = Callable[[Path, str, str, bool, bool], Dataset]


def find_file(directory: Path, stem: str) -> Path:
    """``stem`` or ``stem.gz`` inside ``directory`` (downloads may be either)."""
    for candidate in (directory / stem, directory / f"{stem}.gz"):
        if candidate.is_file():
            return candidate
    raise DataNotFoundError(f"{directory / stem}[.gz]: file not found")


def load_conll2003(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    stem = {"train": "eng.train", "dev": "eng.testa", "test": "eng.testb"}[split]
    return read_conll(
        find_file(d, stem), name="conll2003", language=language, split=split, lenient=lenient, skip_malformed=skip
    )


def load_conll2002_es(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    stem = {"train": "esp.train", "dev": "esp.testa", "test": "esp.testb"}[split]
    path = find_file(d, stem)
    return with_note(
        read_conll(
            path,
            scheme="IOB2",
            name="conll2002_es",
            language=language,
            split=split,
            lenient=lenient,
            skip_malformed=skip,
        )
    )


def with_note(ds: Dataset) -> Dataset:
    """``ds`` with ``metadata["note"]`` saying what lenient reading changed in the original data, if anything."""
    notes = []
    if ds.repaired:
        notes.append(
            f"{ds.repaired} I- tag(s) that continue no entity in the original data (after O or another type) were "
            "read as B- (lenient mode); pass lenient=False to get an error at the place instead"
        )
    if ds.repair_log.split:
        notes.append(
            f"{ds.repair_log.split} line(s) whose word was fused with the next column were split and kept with their "
            "tag (lenient=True); their places are in repair_log"
        )
    for kind, what in (("skipped", "with a single field"), ("ragged", "with another field count than the file's")):
        if ds.repair_log.counts.get(kind):
            notes.append(
                f"{ds.repair_log.counts[kind]} line(s) {what} were skipped (lenient=True); their places are in "
                "repair_log"
            )
    return ds.with_meta(metadata={**ds.metadata, "note": "; ".join(notes)}) if notes else ds


def _read_iob2(path: Path, name: str, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    """A CoNLL-column file of one language in IOB2 (WikiANN, MultiCoNER, MasakhaNER 2.0)."""
    return read_conll(
        path, scheme="IOB2", name=name, language=language, split=split, lenient=lenient, skip_malformed=skip
    )


def load_wikiann(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    return _read_iob2(find_file(d, wikiann_stem(split, language)), "wikiann", split, language, lenient, skip)


def wikiann_stem(split: str, language: str) -> str:
    file_split = {"train": "train", "dev": "val", "test": "test"}[split]
    return f"{language}.{file_split}.tsv"


def multiconer_stem(split: str, language: str) -> str:
    return f"{language}_{split}.conll"


def load_multiconer(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    path = find_file(d, multiconer_stem(split, language))
    return _read_iob2(path, "multiconer2022", split, language, lenient, skip)


def masakhaner2_stem(split: str, language: str) -> str:
    return f"{language}_{split}.txt"


def load_masakhaner2(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    path = find_file(d, masakhaner2_stem(split, language))
    return with_note(_read_iob2(path, "masakhaner2", split, language, lenient, skip))


def massive_stem(split: str, language: str) -> str:
    return f"{language}.jsonl"


def load_massive(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    path = find_file(d, massive_stem(split, language))
    return read_massive(path, partition=split, name="massive", language=language, split=split)


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
    return read_char_span_json(path, name="ner_ja_wikipedia", language=language, split="all")


def load_ner_ja(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    path = find_file(d, "ner.json").resolve()
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


def slu_loader(corpus: str) -> Loader:
    def load(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
        sub = {"train": "train", "dev": "valid", "test": "test"}[split]
        return read_slu(d / sub, name=corpus, language=language, split=split, lenient=lenient)

    return load


def load_sst2(d: Path, split: str, language: str, lenient: bool, skip: bool) -> Dataset:
    return read_tsv(find_file(d, f"{split}.tsv"), name="sst2", language=language, split=split)
