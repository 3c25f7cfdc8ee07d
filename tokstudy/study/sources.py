"""Where a study's text comes from: the real corpora, or the generated sample.

The study names corpora (``raw_text``) and datasets (``conll2003:test``) the way
the registry does. :func:`resolve_sources` checks the data location once; when a
corpus the study needs is missing and ``allow_sample`` is set, the synthetic sample
(:mod:`tokstudy.study.sample_data`) stands in for it, and :attr:`Sources.notes`
says so plainly for the report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tokstudy.data.conll import read_conll
from tokstudy.data.registry import SPLIT_ALIASES, load_dataset
from tokstudy.data.slu import read_slu
from tokstudy.data.types import Dataset
from tokstudy.datalocation import CORPORA, data_root, has_corpus, shown_path
from tokstudy.errors import DataNotFoundError
from tokstudy.inputs import load_dataset_spec
from tokstudy.study.sample_data import write_sample

# What the sample can stand in for: corpus -> part of the sample.
_SAMPLE_RAW = {"raw_text", "raw_text_large"}
_SAMPLE_NER = {"conll2003"}
_SAMPLE_INTENT = {"snips"}


@dataclass
class Sources:
    """Resolved inputs of one study run.

    Attributes:
        data_dir: the data location that was checked.
        sample_dir: where the synthetic sample was written, or None when all data is real.
        notes: plain sentences for the report about what was used instead of what.
    """

    data_dir: Path
    sample_dir: Path | None = None
    notes: list[str] = field(default_factory=list)
    _real: set[str] = field(default_factory=set)
    _read: dict[tuple, Dataset] = field(default_factory=dict, repr=False, compare=False)
    """The splits :meth:`dataset` has read, whole, by what names them: every fine-tuning run of a study reads its
    task's splits, and reading CoNLL-2003's training split again for each was a quarter of a small study's time.
    Kept in the process that read them (not pickled to the process pool's workers)."""

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_read"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _read={})

    @property
    def used_sample(self) -> bool:
        return self.sample_dir is not None

    def fingerprint(self) -> dict:
        """What identifies the inputs, for stage keys."""
        return {"data_dir": str(self.data_dir), "sample": self.used_sample, "real": sorted(self._real)}

    def raw_files(self, corpora: tuple[str, ...], languages: tuple[str, ...] = ()) -> list[Path]:
        """Raw-text files of ``corpora`` restricted to ``languages`` (all when empty)."""
        files: list[Path] = []
        for corpus in corpora:
            if corpus in self._real:
                directory = self.data_dir / CORPORA.get(corpus, corpus)
            elif Path(corpus).exists():
                directory = Path(corpus)
            elif self.sample_dir is not None and corpus in _SAMPLE_RAW:
                directory = self.sample_dir / "raw_text"
            else:
                raise DataNotFoundError(f"raw-text corpus {corpus!r} is neither at {self.data_dir} nor a path")
            found = sorted(directory.glob("*.txt.gz")) + sorted(directory.glob("*.txt"))
            files += [f for f in found if not languages or f.name.split(".")[0] in languages]
        if not files:
            raise DataNotFoundError(f"no raw-text files for corpora {corpora} and languages {languages}")
        return sorted(set(files))

    def is_real(self, name: str) -> bool:
        """Whether corpus ``name`` is read from the data location (not from the sample, nor absent)."""
        return name in self._real

    def corpus_path(self, name: str) -> Path | None:
        """Directory of a real corpus, or None when it is absent (the sample has no parallel text)."""
        return self.data_dir / CORPORA.get(name, name) if name in self._real else None

    def has_dataset(self, name: str) -> bool:
        if name.startswith("hf:"):  # a Hugging Face dataset (online users): loaded on demand
            return True
        return name in self._real or (self.sample_dir is not None and name in _SAMPLE_NER | _SAMPLE_INTENT)

    def dataset(
        self,
        name: str,
        split: str,
        *,
        language: str | None = None,
        limit: int | None = None,
        lenient: bool | None = None,
    ) -> Dataset:
        """A labelled split, real or from the sample, cut to its first ``limit`` sentences.

        ``lenient`` is the registry's (:func:`tokstudy.data.registry.load_dataset`): None reads the corpus as
        its default says, True also skips malformed lines (counted in ``Dataset.repair_log``). A ``hf:`` name is
        read as every front end reads one (:func:`tokstudy.inputs.load_dataset_spec`). Each split is read once by
        this object (:attr:`_read`); a copy pickled to a pool worker starts empty."""
        key = (name, split, language, lenient)
        if key not in self._read:
            self._read[key] = self._load(name, split, language=language, lenient=lenient)
        ds = self._read[key]
        if limit is not None and len(ds) > limit:
            ds = ds.with_meta(sentences=ds.sentences[:limit])
        return ds

    def _load(self, name: str, split: str, *, language: str | None, lenient: bool | None) -> Dataset:
        """The whole split, real or from the sample."""
        if name.startswith("hf:"):
            hf_split = {"dev": "validation"}.get(SPLIT_ALIASES.get(split, split), split)
            ds = load_dataset_spec(f"{name}:{hf_split}", language=language)
        elif name in self._real:
            ds = load_dataset(name, split, language=language, data_dir=self.data_dir, lenient=lenient)
        elif self.sample_dir is not None and name in _SAMPLE_NER:
            split = SPLIT_ALIASES.get(split, split)
            ds = read_conll(
                self.sample_dir / "ner" / f"{split}.conll",
                scheme="iob2",
                name=f"{name}-sample",
                language="en",
                split=split,
            )
        elif self.sample_dir is not None and name in _SAMPLE_INTENT:
            split = {"dev": "valid"}.get(SPLIT_ALIASES.get(split, split), split)
            ds = read_slu(self.sample_dir / "intent" / split, name=f"{name}-sample", language="en", split=split)
        else:
            raise DataNotFoundError(f"dataset {name!r} is not at {self.data_dir} and the sample has no stand-in")
        return ds


def resolve_sources(
    needed: set[str], results_dir: Path, *, data_dir: str | os.PathLike | None = None, allow_sample: bool = True
) -> Sources:
    """Check which of the ``needed`` corpora are present; generate the sample for the rest if allowed."""
    root = data_root(data_dir)
    real = {name for name in needed if has_corpus(name, root)}
    sources = Sources(data_dir=root, _real=real)
    missing = sorted(needed - real)
    if not missing:
        return sources
    if not allow_sample:
        raise DataNotFoundError(f"corpora {missing} not found at {root}; set --data-dir or $TOKSTUDY_DATA")
    sources.sample_dir = results_dir / "sample_data"
    if not (sources.sample_dir / "ner" / "test.conll").is_file():
        write_sample(sources.sample_dir, seed=0)
    stand_in = [m for m in missing if m in _SAMPLE_RAW | _SAMPLE_NER | _SAMPLE_INTENT]
    dropped = [m for m in missing if m not in stand_in]
    if stand_in:
        sources.notes.append(
            f"The real corpora {stand_in} were not found at the data location `{shown_path(root)}`, so a small "
            "SYNTHETIC SAMPLE generated by "
            "tokstudy stands in for them: the figures below describe that sample, not real text."
        )
    if dropped:
        sources.notes.append(f"Not available and skipped: {dropped}.")
    return sources
