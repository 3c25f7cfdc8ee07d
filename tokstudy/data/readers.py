"""One dataset file (or SNIPS/ATIS folder) the user names, read by its format: the reader per ``--format``.

:class:`~tokstudy.data.formats.FileOptions` says how; the shared corpora have their own readers
(:mod:`tokstudy.data.corpora`).
"""

from __future__ import annotations

from pathlib import Path

from tokstudy.data.conll import read_conll
from tokstudy.data.formats import FileOptions, dataset_file_key
from tokstudy.data.jsonl import read_char_span_json, read_jsonl
from tokstudy.data.massive import read_massive
from tokstudy.data.slu import read_slu
from tokstudy.data.tsv import read_tsv
from tokstudy.data.types import Dataset
from tokstudy.errors import DataFormatError, DataNotFoundError

#: the files of a SNIPS/ATIS-style folder
SLU_FILES = ("seq.in", "seq.out", "label")


def read_dataset_file(path: Path, options: FileOptions, *, language: str = "und") -> Dataset:
    """Read one dataset file (or SLU folder) as ``options`` says; named by its stem, split guessed from its name."""
    fmt = options.format_of(path)
    if path.is_dir() and fmt != "slu":
        raise DataNotFoundError(_folder_message(path, fmt))
    name, split = dataset_file_key(path)
    common = {"name": name, "language": language, "split": split}
    lenient = bool(options.lenient)
    if fmt == "massive":
        return read_massive(
            path, name=name, language=None if language == "und" else language, encoding=options.encoding
        )
    if fmt == "slu":
        if not path.is_dir():
            raise DataFormatError(f"--format slu expects a folder holding {', '.join(SLU_FILES)}", path=path)
        if not all((path / f).is_file() for f in SLU_FILES):
            raise DataNotFoundError(_folder_message(path, fmt))
        scheme = options.scheme if options.scheme != "auto" else "IOB2"
        return read_slu(path, lenient=lenient, encoding=options.encoding, scheme=scheme, **common)
    if fmt == "conll":
        return read_conll(
            path,
            label_column=options.conll_label_column(),
            scheme=options.scheme,
            lenient=lenient,
            encoding=options.encoding,
            **common,
        )
    if fmt == "tsv":
        return read_tsv(path, label_column=options.label_column or "label", encoding=options.encoding, **common)
    if fmt == "jsonl":
        return read_jsonl(
            path,
            tags_key=options.label_column or "tags",
            scheme=options.scheme,
            lenient=lenient,
            encoding=options.encoding,
            **common,
        )
    return read_char_span_json(path, **common)


def _folder_message(path: Path, fmt: str) -> str:
    files = sorted(f.name for f in path.iterdir() if f.is_file())[:8]
    listing = ", ".join(files) if files else "no files"
    if fmt == "slu":
        return (
            f"{path}: is a folder without {', '.join(SLU_FILES)} (it holds {listing}); "
            "give one dataset file, or a SNIPS/ATIS-style folder"
        )
    return f"{path}: is a folder, not a {fmt} file (it holds {listing}); give one of its files"
