"""Load tokenizers, datasets and predictions through the tokstudy API (:mod:`tokstudy.inputs`, the loader the
CLI and the study call too), with messages for people.

Every loader raises :class:`InputError` (one clear sentence naming the file) for any
bad input, so a page shows ``st.error(str(exc))`` and never a traceback. Nothing here
executes or unpickles what it reads: tokenizers are SentencePiece protobufs or
``tokenizer.json`` files, datasets and predictions are text.

>>> load_conll("/no/such/file.conll")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
analysis_app.services.loading.InputError: /no/such/file.conll: no such file
"""

from __future__ import annotations

import os
from pathlib import Path

from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.data.formats import FileOptions
from tokstudy.data.readers import read_dataset_file
from tokstudy.data.registry import load_dataset
from tokstudy.errors import TokstudyError
from tokstudy.inputs import load_tokenizer_path


class InputError(ValueError):
    """A tokenizer, dataset or predictions file the app cannot use; the message is for the user."""


def load_segmenter(path: str | os.PathLike, name: str | None = None, count_lone_boundary: bool = True):
    """A :class:`~tokstudy.tokenization.base.Segmenter` for a ``.model`` file, a ``tokenizer.json``
    or a tokenizer directory, via :func:`tokstudy.inputs.load_tokenizer_path`."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such tokenizer file or directory")
    try:
        return load_tokenizer_path(path, name=name, count_lone_boundary=count_lone_boundary)
    except TokstudyError as exc:
        raise InputError(str(exc)) from None
    except Exception as exc:  # e.g. the Rust tokenizers parser's own exception type: still the user's file
        raise InputError(f"{path}: not a tokenizer tokstudy can load ({type(exc).__name__}: {exc})") from None


def load_conll(
    path: str | os.PathLike,
    *,
    name: str | None = None,
    language: str = "und",
    split: str = "all",
    lenient: bool = False,
):
    """A CoNLL column file as a :class:`~tokstudy.data.types.Dataset` (IOB2 tags); ``lenient`` repairs
    invalid tag sequences (counted in ``Dataset.repaired``) instead of refusing the file. Read as the CLI reads
    ``--format conll`` (:func:`tokstudy.data.readers.read_dataset_file`), named by its stem unless ``name``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        ds = read_dataset_file(path, FileOptions(format="conll", lenient=lenient), language=language)
        return ds.with_meta(name=name or ds.name, split=split)
    except TokstudyError as exc:
        raise InputError(f"not a CoNLL file tokstudy can read: {exc}") from None
    except (UnicodeDecodeError, OSError, EOFError) as exc:
        raise InputError(f"{path}: cannot be read as CoNLL text ({exc})") from None


def load_named_dataset(name: str, split: str, *, language: str | None = None):
    """A dataset of the tokstudy registry (e.g. ``conll2003``/``test``) from the data location."""
    try:
        return load_dataset(name, split, language=language)
    except TokstudyError as exc:
        raise InputError(str(exc)) from None
    except (KeyError, ValueError) as exc:
        raise InputError(f"dataset {name!r} split {split!r}: {exc}") from None


def load_predictions(path: str | os.PathLike):
    """A predictions file (tokstudy or conlleval format), read by :func:`read_predictions` below."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such predictions file")
    try:
        return read_predictions(path)
    except TokstudyError as exc:
        raise InputError(f"not a predictions file tokstudy can read: {exc}") from None
    except (UnicodeDecodeError, OSError, EOFError, ValueError) as exc:
        raise InputError(f"{path}: cannot be read as predictions ({exc})") from None
