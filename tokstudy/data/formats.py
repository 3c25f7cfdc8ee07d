"""How a dataset file the user names is read: its format (``--format``) and the reader options, and the name and
split it is known by.

The shared corpora have their own readers (:mod:`tokstudy.data.corpora`, named by :mod:`tokstudy.data.registry`);
a file the user names is read by :func:`tokstudy.data.readers.read_dataset_file` as :class:`FileOptions` says:
``auto`` goes by the name (``.jsonl`` JSON lines, or MASSIVE where its first record has ``annot_utt``; ``.json``
character-span JSON; a folder SNIPS/ATIS ``seq.in``/``seq.out``/``label``; anything else CoNLL columns). This
module imports no reader, so that the command line can declare its options without loading them.

>>> FileOptions().format_of(Path("train.json")), FileOptions(format="tsv").format_of(Path("x.conll"))
('span-json', 'tsv')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tokstudy.data.massive import looks_like_massive
from tokstudy.data.schemes import normalize_scheme
from tokstudy.data.textio import check_encoding
from tokstudy.errors import UsageError

#: ``--format`` values: how a dataset given as a path is read
FORMATS = ("auto", "conll", "tsv", "jsonl", "span-json", "slu", "massive")


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
            return "massive" if looks_like_massive(path) else "jsonl"
        return {".json": "span-json"}.get(last, "conll")


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
