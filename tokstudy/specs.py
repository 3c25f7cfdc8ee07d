"""Turning what a user types (dataset and tokenizer specs) into datasets and tokenizers: plain values in.

Dataset specs:

* a registry name with its split: ``conll2003:test``, ``wikiann:ru:test``
  (``name:language:split``), ``conll2003`` alone means its test split; ``*`` as the language
  (or split) is every one present: ``masakhaner2:*:test`` (:mod:`tokstudy.data.names`);
* a file path: ``data/my.conll`` (read as ``--format`` says; ``auto`` goes by the
  name: ``.jsonl`` JSON lines, or MASSIVE where its first record has ``annot_utt``,
  ``.json`` character-span JSON, else CoNLL columns);
  ``path.conll@de`` sets the language;
* a folder holding ``seq.in``/``seq.out``/``label`` (SNIPS/ATIS layout).

Files with the same name in different folders (``amh/test.txt``, ``swa/test.txt``) get
names made distinct by their folders (``amh/test``, ``swa/test``).

Tokenizer specs: a path (``runs/tok/sp-32000``, ``spm.model``, ``tokenizer.json``),
optionally named: ``sp32k=runs/tok/sp-32000``. Unnamed, a directory is named after itself and a file
after its own name (:func:`~tokstudy.tokenization.sentencepiece_.default_name`); two files of one name
(``a/tokenizer.json``, ``b/tokenizer.json``) are told apart by their folders (``a/tokenizer``, ``b/tokenizer``).

>>> parse_tokenizer_spec("sp32k=runs/tok/sp-32000")
('sp32k', 'runs/tok/sp-32000')
>>> parse_tokenizer_spec("runs/tok/sp-32000")
(None, 'runs/tok/sp-32000')
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tokstudy.data.names import WILDCARD, expand_dataset_name, parse_dataset_name
from tokstudy.data.types import Dataset
from tokstudy.errors import DataFormatError, DataNotFoundError, TokenizerLoadError, UsageError
from tokstudy.tokenization.base import Segmenter

#: ``--format`` values: how a dataset given as a path is read
FORMATS = ("auto", "conll", "tsv", "jsonl", "span-json", "slu", "massive")
_SLU_FILES = ("seq.in", "seq.out", "label")


@dataclass(frozen=True)
class FileOptions:
    """How dataset files given as paths are read (the CLI's reader options).

    Attributes:
        format: one of :data:`FORMATS`; ``auto`` goes by the file name.
        encoding: text encoding of the files (UTF-8 unless told).
        scheme: tag scheme (``auto``, ``IOB1``, ``IOB2``, ``IOBES``, ``BILOU``) for CoNLL and JSON lines.
        lenient: repair forbidden tag transitions instead of refusing them (``None``: the reader's
            default, strict for files; registry datasets keep their own default).
        label_column: the tag column: an index for CoNLL (``-1``, the last, by default), the header
            name for TSV (``label``), the key of the tag list for JSON lines (``tags``).
    """

    format: str = "auto"
    encoding: str = "utf-8"
    scheme: str = "auto"
    lenient: bool | None = None
    label_column: str | None = None

    def __post_init__(self) -> None:
        from tokstudy.data.schemes import normalize_scheme
        from tokstudy.data.textio import check_encoding

        if self.format not in FORMATS:
            raise UsageError(f"unknown dataset format {self.format!r}; expected one of {', '.join(FORMATS)}")
        check_encoding(self.encoding)
        try:
            normalize_scheme(self.scheme)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if self.label_column is not None and self.format == "conll":
            self.conll_label_column()

    def conll_label_column(self) -> int:
        if self.label_column is None:
            return -1
        try:
            return int(self.label_column)
        except ValueError:
            raise UsageError(
                f"--label-column {self.label_column!r}: CoNLL files need a column index (0 the first, -1 the last)"
            ) from None

    def format_of(self, path: Path) -> str:
        """The format a path is read with (``auto`` resolved by its name)."""
        if self.format != "auto":
            return self.format
        if path.is_dir():
            return "slu"
        suffixes = [x.lower() for x in path.suffixes if x.lower() != ".gz"]
        last = suffixes[-1] if suffixes else ""
        if last == ".jsonl":
            from tokstudy.data.massive import looks_like_massive

            return "massive" if looks_like_massive(path) else "jsonl"
        return {".json": "span-json"}.get(last, "conll")


def parse_tokenizer_spec(spec: str) -> tuple[str | None, str]:
    """``(name or None, path)`` from ``name=path`` or ``path``."""
    name, sep, path = spec.partition("=")
    if sep and name and "/" not in name and os.sep not in name:
        return name, path
    return None, spec


#: ``(name, language, split)`` of a registry spec (its home is :mod:`tokstudy.data.names`)
parse_registry_spec = parse_dataset_name


def load_dataset_spec(
    spec: str,
    *,
    data_dir: str | os.PathLike | None = None,
    format: str = "auto",
    language: str | None = None,
    options: FileOptions | None = None,
) -> Dataset:
    """Read one dataset given as a registry spec, a file or a folder (see the module docstring).

    ``hf:NAME[@CONFIG]:SPLIT`` reads a Hugging Face dataset (see :mod:`tokstudy.data.hub`).
    ``options`` says how files are read (its ``format`` wins over ``format``).
    """
    from tokstudy.data.hub import is_hf_spec, load_hf_dataset, parse_hf_spec

    options = options or FileOptions(format=format)
    if is_hf_spec(spec):
        name, config, split = parse_hf_spec(spec)
        return load_hf_dataset(name, split, config=config, language=language)
    path_part, at, lang = spec.rpartition("@")
    file_spec, file_lang = (path_part, lang) if at and "/" not in lang else (spec, None)
    p = Path(file_spec).expanduser()
    if p.is_file() or p.is_dir():
        return read_dataset_file(p, options, language=file_lang or language or "und")
    if any(c in spec for c in "/\\") or p.suffix in (
        ".conll",
        ".txt",
        ".gz",
        ".tsv",
        ".iob",
        ".bio",
        ".json",
        ".jsonl",
    ):
        raise DataNotFoundError(f"{p}: dataset file not found")
    from tokstudy.data.registry import list_datasets, load_dataset

    name = spec.split(":", 1)[0]
    if name not in list_datasets():
        raise DataNotFoundError(
            f"{spec!r} is neither a file nor a known dataset; known datasets: {', '.join(list_datasets())} "
            "(write NAME:SPLIT or NAME:LANGUAGE:SPLIT, e.g. conll2003:test, wikiann:ru:test, masakhaner2:*:test)"
        )
    name, lang, split = parse_dataset_name(spec, language=language)
    try:
        return load_dataset(name, split, language=lang, data_dir=data_dir, lenient=options.lenient)
    except ValueError as exc:
        raise DataFormatError(f"dataset {spec!r}: {exc}") from None


def read_dataset_file(path: Path, options: FileOptions, *, language: str = "und") -> Dataset:
    """Read one dataset file (or SLU folder) as ``options`` says; named by its stem, split guessed from its name."""
    fmt = options.format_of(path)
    if path.is_dir() and fmt != "slu":
        raise DataNotFoundError(_folder_message(path, fmt))
    name, split = dataset_file_key(path)
    common = {"name": name, "language": language, "split": split}
    if fmt == "massive":
        from tokstudy.data.massive import read_massive

        return read_massive(
            path, name=name, language=None if language == "und" else language, encoding=options.encoding
        )
    if fmt == "slu":
        if not path.is_dir():
            raise DataFormatError(f"--format slu expects a folder holding {', '.join(_SLU_FILES)}", path=path)
        if not all((path / f).is_file() for f in _SLU_FILES):
            raise DataNotFoundError(_folder_message(path, fmt))
        from tokstudy.data.slu import read_slu

        return read_slu(
            path,
            lenient=bool(options.lenient),
            encoding=options.encoding,
            scheme=options.scheme if options.scheme != "auto" else "IOB2",
            **common,
        )
    lenient = bool(options.lenient)
    if fmt == "conll":
        from tokstudy.data.conll import read_conll

        return read_conll(
            path,
            label_column=options.conll_label_column(),
            scheme=options.scheme,
            lenient=lenient,
            encoding=options.encoding,
            **common,
        )
    if fmt == "tsv":
        from tokstudy.data.tsv import read_tsv

        return read_tsv(path, label_column=options.label_column or "label", encoding=options.encoding, **common)
    if fmt == "jsonl":
        from tokstudy.data.jsonl import read_jsonl

        return read_jsonl(
            path,
            tags_key=options.label_column or "tags",
            scheme=options.scheme,
            lenient=lenient,
            encoding=options.encoding,
            **common,
        )
    from tokstudy.data.jsonl import read_char_span_json

    return read_char_span_json(path, **common)


def _folder_message(path: Path, fmt: str) -> str:
    files = sorted(f.name for f in path.iterdir() if f.is_file())[:8]
    listing = ", ".join(files) if files else "no files"
    if fmt == "slu":
        return (
            f"{path}: is a folder without {', '.join(_SLU_FILES)} (it holds {listing}); "
            "give one dataset file, or a SNIPS/ATIS-style folder"
        )
    return f"{path}: is a folder, not a {fmt} file (it holds {listing}); give one of its files"


def dataset_file_key(path: str | os.PathLike) -> tuple[str, str]:
    """``(name, split)`` a dataset file is known by everywhere (CLI, study, app): its file name up to the
    first dot, and the split its name suggests (``train``; ``dev`` for dev/valid/testa; ``test`` for
    test/testb; else ``all``).

    >>> dataset_file_key("data/eng.testb"), dataset_file_key("my_corpus.conll"), dataset_file_key("de-train.txt.gz")
    (('eng', 'test'), ('my_corpus', 'all'), ('de-train', 'train'))
    """
    file_name = Path(path).name
    return file_name.split(".")[0] or file_name, _split_from_name(file_name)


def _split_from_name(name: str) -> str:
    low = name.lower()
    for key, split in (
        ("train", "train"),
        ("testa", "dev"),
        ("dev", "dev"),
        ("valid", "dev"),
        ("testb", "test"),
        ("test", "test"),
    ):
        if key in low:
            return split
    return "all"


def load_datasets(specs: Sequence[str], **kwargs) -> list[Dataset]:
    """Every dataset of ``specs`` (see :func:`load_dataset_spec`), files with the same name made distinct.

    A registry name with ``*`` stands for every dataset it matches (:func:`~tokstudy.data.names.expand_dataset_name`).

    Two files whose names and splits coincide (``amh/test.txt``, ``swa/test.txt``) are named by
    as many of their folders as it takes (``amh/test``, ``swa/test``); the same file twice is refused.
    """
    if not specs:
        raise DataFormatError("no dataset given; pass --dataset NAME:SPLIT or --dataset PATH")
    data_dir = kwargs.get("data_dir")
    concrete = [name for s in specs for name in (expand_dataset_name(s, data_dir=data_dir) if _is_wildcard(s) else [s])]
    options = kwargs.get("options")
    if options is not None and options.scheme != "auto":
        check_scheme(concrete, options.scheme)
    datasets = [load_dataset_spec(s, **kwargs) for s in concrete]
    return distinct_names(datasets)


class SchemeNotAppliedWarning(UserWarning):
    """A tag scheme was given for dataset files, and registry datasets beside them keep their own."""


def check_scheme(specs: Sequence[str], scheme: str) -> None:
    """A tag ``scheme`` (``--scheme``) is for dataset files given as paths: a registry dataset is read in the
    scheme its files are in, which the registry knows (:attr:`~tokstudy.data.registry.DatasetInfo.scheme`).

    A ``scheme`` that contradicts a registry dataset's is refused (:class:`UsageError`) when only registry
    datasets are given, and stated (:class:`SchemeNotAppliedWarning`) when files beside them take it.
    """
    from tokstudy.data.registry import dataset_info
    from tokstudy.data.schemes import normalize_scheme

    scheme = normalize_scheme(scheme)
    registry = [s for s in specs if _registry_name(s)]
    own = {s: dataset_info(_registry_name(s)).scheme for s in registry}
    differ = [
        f"{s} ({own[s] + ' files' if own[s] else 'no tag scheme: ' + _no_scheme_reason(s)})"
        for s in own
        if own[s] != scheme
    ]
    if not differ:
        return
    listing = ", ".join(differ)
    if len(registry) == len(specs):
        raise UsageError(
            f"--scheme {scheme} does not apply to registry datasets, which are read in the scheme of their files: "
            f"{listing}; --scheme is for dataset files given as paths: leave it out"
        )
    warnings.warn(
        f"--scheme {scheme} applies to the dataset files given as paths; the registry datasets keep their own: "
        f"{listing}",
        SchemeNotAppliedWarning,
        stacklevel=3,
    )


def _registry_name(spec: str) -> str | None:
    """The registry name of a spec read from the registry (no file or folder of that name, no ``hf:``),
    else None: the test :func:`load_dataset_spec` makes."""
    from tokstudy.data.hub import is_hf_spec
    from tokstudy.data.registry import list_datasets

    if is_hf_spec(spec) or Path(spec.rpartition("@")[0] or spec).expanduser().exists() or Path(spec).exists():
        return None
    name = spec.split(":", 1)[0]
    return name if name in list_datasets() else None


def _no_scheme_reason(spec: str) -> str:
    from tokstudy.data.registry import dataset_info

    return "sentence labels" if dataset_info(_registry_name(spec)).task == "classification" else "character spans"


def _is_wildcard(spec: str) -> bool:
    """Whether ``spec`` is a registry name with ``*`` (``masakhaner2:*:test``), not a file that exists."""
    from tokstudy.data.registry import list_datasets

    return WILDCARD in spec and spec.split(":", 1)[0] in list_datasets() and not Path(spec).expanduser().exists()


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
        for depth in range(1, max(len(s.parts) for s in sources)):
            names = ["/".join(s.parts[-depth - 1 : -1] + (key[0],)) for s in sources]
            if len(set(names)) == len(names):
                break
        for i, name in zip(idx, names):
            out[i] = out[i].with_meta(name=name)
    return out


def load_tokenizers(
    specs: Sequence[str], *, count_lone_boundary: bool = True, tiktoken_pattern: str | None = None
) -> list[Segmenter]:
    """Every tokenizer of ``specs`` (``name=path``, ``path`` or ``tiktoken:ENCODING``), with distinct names.

    ``tiktoken_pattern`` is the pre-tokenizer pattern of every tiktoken rank file among them (see
    :func:`~tokstudy.tokenization.tiktoken_.pattern_for`).
    """
    from tokstudy.tokenization.loading import ACCEPTED, load_tokenizer

    if not specs:
        raise TokenizerLoadError(f"no tokenizer given; pass --tokenizer PATH ({ACCEPTED})")
    out, unnamed = [], {}
    for i, spec in enumerate(specs):
        name, path = parse_tokenizer_spec(spec)
        if not path.startswith("tiktoken:") and not Path(path).expanduser().exists():
            raise TokenizerLoadError(f"{path}: tokenizer not found (expected {ACCEPTED})")
        out.append(
            load_tokenizer(path, name=name, count_lone_boundary=count_lone_boundary, tiktoken_pattern=tiktoken_pattern)
        )
        if name is None and not path.startswith("tiktoken:"):
            unnamed[i] = Path(path).expanduser()
    _names_by_folder(out, unnamed)
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise TokenizerLoadError(f"tokenizer names repeat ({names}); name them: --tokenizer NAME=PATH")
    return out


def _names_by_folder(segmenters: list[Segmenter], paths: dict[int, Path]) -> None:
    """Unnamed tokenizers whose default names repeat (``a/tokenizer.json``, ``b/tokenizer.json``) are named
    by as many of their folders as it takes (``a/tokenizer``, ``b/tokenizer``), as dataset files are."""
    names = [s.name for s in segmenters]
    for name in {n for n in names if names.count(n) > 1}:
        idx = [i for i, n in enumerate(names) if n == name and i in paths]
        given = [Path(os.path.abspath(paths[i])) for i in idx]  # folders as the user named them, links kept
        if len(idx) < 2 or len({p.resolve() for p in given}) < len(given):
            continue  # named by the user, or the same file twice: refused by the caller
        for depth in range(1, max(len(p.parts) for p in given)):
            labels = ["/".join((*p.parent.parts[-depth:], name)) for p in given]
            if len(set(labels)) == len(labels):
                break
        else:
            continue  # no folder tells them apart: refused by the caller
        for i, label in zip(idx, labels):
            segmenters[i].name = label


def check_files(paths: Sequence[str], option: str) -> None:
    """Refuse a missing file given to ``option`` before any work starts."""
    for path in paths:
        p = Path(path).expanduser()
        if not p.is_file():
            raise DataNotFoundError(
                f"{option} {path}: " + ("is a folder; expected a file" if p.is_dir() else "file not found")
            )
