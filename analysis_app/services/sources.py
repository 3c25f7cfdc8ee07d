"""What the user can pick from: tokenizers, datasets and predictions, as small hashable specs.

Specs are what session state and cache keys hold; the heavy objects are loaded from them
by :mod:`analysis_app.components.cache`. :func:`initial_sources` fills the lists from the
results directory and the tokstudy data location.

>>> DatasetSource.registry("conll2003", "test").key
'conll2003:test'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from analysis_app.services.results import discover
from tokstudy.data.registry import TAGGED_TASKS, available_datasets, dataset_info
from tokstudy.inputs import dataset_file_key


@dataclass(frozen=True)
class TokenizerSource:
    """A tokenizer to load: ``name`` (distinct in the app), ``path``, and where it came from."""

    name: str
    path: str
    origin: str = "path"  # "results", "path" or "upload"


@dataclass(frozen=True)
class DatasetSource:
    """A dataset to load, from the tokstudy registry or a CoNLL file.

    Attributes:
        key: display name, distinct in the app (``name:split`` for registry sets).
        kind: ``"registry"`` or ``"conll"``.
        name, split, language: registry arguments, or the metadata given to the CoNLL reader.
        path: the CoNLL file (``kind="conll"``).
        lenient: read the CoNLL file leniently (invalid tag sequences repaired, as the registry
            reads CoNLL-2002) instead of refusing it.
    """

    key: str
    kind: str
    name: str
    split: str
    language: str | None = None
    path: str = ""
    lenient: bool = False

    @property
    def table_name(self) -> str:
        """The dataset's name in segmentation tables (the key without ``:split``)."""
        return self.key.rsplit(":", 1)[0]

    @classmethod
    def registry(cls, name: str, split: str, language: str | None = None) -> DatasetSource:
        key = f"{name}{'-' + language if language else ''}:{split}"
        return cls(key, "registry", name, split, language)

    @classmethod
    def conll(
        cls, path: str, name: str, split: str = "all", language: str = "und", *, lenient: bool = False
    ) -> DatasetSource:
        return cls(f"{name}:{split}", "conll", name, split, language, str(path), lenient)


@dataclass(frozen=True)
class PredictionSource:
    """A predictions file: ``model`` that made it, ``path``, and the dataset hint (file stem)."""

    model: str
    path: str
    dataset: str = ""

    @property
    def key(self) -> str:
        return f"{self.model}/{self.dataset}" if self.dataset else self.model


@dataclass(frozen=True)
class Sources:
    """Everything loadable in this session."""

    tokenizers: tuple[TokenizerSource, ...] = ()
    datasets: tuple[DatasetSource, ...] = ()
    predictions: tuple[PredictionSource, ...] = ()
    notes: tuple[str, ...] = field(default=(), compare=False)

    def tokenizer(self, name: str) -> TokenizerSource:
        return next(t for t in self.tokenizers if t.name == name)

    def dataset(self, key: str) -> DatasetSource:
        return next(d for d in self.datasets if d.key == key)

    def add_tokenizer(self, path: str, name: str, origin: str) -> tuple[Sources, TokenizerSource]:
        """Add (or find) a tokenizer; a new name clashing with another path gets a suffix."""
        for t in self.tokenizers:
            if t.path == path:
                return self, t
        taken = {t.name for t in self.tokenizers}
        final, n = name, 2
        while final in taken:
            final, n = f"{name}-{n}", n + 1
        src = TokenizerSource(final, path, origin)
        return replace(self, tokenizers=self.tokenizers + (src,)), src

    def rename_tokenizer(self, old: str, new: str) -> Sources:
        """The same sources with tokenizer ``old`` called ``new`` (``ValueError`` if taken, empty or unknown)."""
        new = new.strip()
        if not new or "," in new:
            raise ValueError(f"{new!r} is not a usable name (empty, or holds a comma)")
        if new != old and any(t.name == new for t in self.tokenizers):
            raise ValueError(f"a tokenizer is already called {new!r}")
        if not any(t.name == old for t in self.tokenizers):
            raise ValueError(f"no tokenizer called {old!r}")
        toks = tuple(replace(t, name=new) if t.name == old else t for t in self.tokenizers)
        return replace(self, tokenizers=toks)

    def add_dataset(self, src: DatasetSource) -> tuple[Sources, DatasetSource]:
        for d in self.datasets:
            if d == src or (src.kind == "conll" and d.path == src.path and d.lenient == src.lenient):
                return self, d
        taken = {d.key for d in self.datasets}
        base, key, n = src.table_name, src.key, 2
        while key in taken:
            key, n = f"{base}-{n}:{src.split}", n + 1
        src = replace(src, key=key)
        return replace(self, datasets=(src,) + self.datasets), src

    def add_predictions(self, src: PredictionSource) -> Sources:
        if any(p.path == src.path for p in self.predictions):
            return self
        return replace(self, predictions=self.predictions + (src,))


#: registry datasets offered by default (NER and slot filling, one entry per split/language).
_DEFAULT_SPLITS = ("test", "dev", "train")


def registry_datasets() -> list[DatasetSource]:
    """Labelled registry datasets (NER and slot filling) whose files are present at the data location, split by
    split (test, dev, train), each language of a corpus of several: a MultiCoNER language without a train file
    offers no train split (:func:`tokstudy.data.registry.available_datasets`)."""
    present = available_datasets()
    out = []
    for name in dict.fromkeys(n for n, _, _ in present):
        if dataset_info(name).task not in TAGGED_TASKS:
            continue
        for split in _DEFAULT_SPLITS:
            out += [DatasetSource.registry(name, split, lang) for n, lang, s in present if n == name and s == split]
    return out


def initial_sources(results: Path | None) -> Sources:
    """Sources from the results directory (if any) plus the registry datasets."""
    sources = Sources()
    notes = []
    if results is not None:
        index = discover(results)
        if not Path(results).is_dir():
            notes.append(f"results directory {results} does not exist (yet); load inputs from the sidebar")
        elif index.empty:
            notes.append(f"results directory {results} holds no tokenizers, predictions or tables yet")
        for f in index.tokenizers:
            sources, _ = sources.add_tokenizer(str(f.path), f.name, "results")
        for f in index.datasets:
            sources, _ = sources.add_dataset(
                DatasetSource.conll(str(f.path), dataset_file_key(f.path)[0], language=guess_language(f.path))
            )
        for f in index.predictions:
            sources = sources.add_predictions(PredictionSource(f.model, str(f.path), f.dataset))
    for d in registry_datasets():
        sources, _ = sources.add_dataset(d)
    # registry entries were prepended one by one: restore registry order, results datasets first
    reg = [d for d in sources.datasets if d.kind == "registry"][::-1]
    own = [d for d in sources.datasets if d.kind != "registry"][::-1]
    return replace(sources, datasets=tuple(own + reg), notes=tuple(notes))


#: language codes recognised in a dataset's path, and the CoNLL shared tasks' own file prefixes.
_LANG_ALIASES = {"eng": "en", "esp": "es", "deu": "de", "ned": "nl", "spa": "es", "ger": "de"}
_LANGS = {"en", "es", "de", "nl", "fr", "it", "pt", "ru", "pl", "ar", "zh", "ja", "ko", "hi", "tr", "fi", "sv", "cs"}


def guess_language(path) -> str:
    """The language a dataset file's path names (``wikiann/de/test.conll``, ``esp.testb``, ``ner_en``), else ``und``.

    >>> guess_language("results/data/conll2002_es/esp.testb.conll"), guess_language("data/x.conll")
    ('es', 'und')
    """
    for part in reversed(Path(path).parts):
        for token in re.split(r"[^A-Za-z]+", part.lower()):
            if token in _LANGS:
                return token
            if token in _LANG_ALIASES:
                return _LANG_ALIASES[token]
    return "und"


def predictions_for(ds: DatasetSource, preds: tuple[PredictionSource, ...]) -> list[PredictionSource]:
    """The prediction files whose dataset hint names ``ds`` (file stem ``conll2003_test``, ``conll2003-test``, ...)."""
    names = {
        ds.key,
        ds.table_name,
        f"{ds.table_name}_{ds.split}",
        f"{ds.table_name}-{ds.split}",
        f"{ds.table_name}.{ds.split}",
    }
    if ds.kind == "registry":
        names |= {f"{ds.name}_{ds.split}", f"{ds.name}-{ds.split}", f"{ds.name}.{ds.split}"}
    names = {n.replace(":", "_") for n in names} | names
    return [p for p in preds if p.dataset in names]


def train_source(dataset: DatasetSource) -> DatasetSource | None:
    """The training split of a registry dataset (``None`` for files and for a training split itself):
    where the Errors page's word frequencies come from.

    >>> train_source(DatasetSource.registry("conll2003", "test")).key
    'conll2003:train'
    """
    if dataset.kind != "registry" or dataset.split == "train":
        return None
    return DatasetSource.registry(dataset.name, "train", dataset.language)
