"""Turning what a user types into datasets and tokenizers (shared by the CLI commands and the app).

Dataset specs:

* a registry name with its split: ``conll2003:test``, ``wikiann:ru:test``
  (``name:language:split``), ``conll2003`` alone means its test split;
* a file path: ``data/my.conll`` (read with ``--format``, default CoNLL columns);
  ``path.conll@de`` sets the language.

Tokenizer specs: a path (``runs/tok/sp-32000``, ``spm.model``, ``tokenizer.json``),
optionally named: ``sp32k=runs/tok/sp-32000``.

>>> parse_tokenizer_spec("sp32k=runs/tok/sp-32000")
('sp32k', 'runs/tok/sp-32000')
>>> parse_tokenizer_spec("runs/tok/sp-32000")
(None, 'runs/tok/sp-32000')
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Sequence

from tokstudy.data.types import Dataset
from tokstudy.errors import DataFormatError, DataNotFoundError, TokenizerLoadError
from tokstudy.tokenization.base import Segmenter

FORMATS = ("conll",)


def parse_tokenizer_spec(spec: str) -> tuple[str | None, str]:
    """``(name or None, path)`` from ``name=path`` or ``path``."""
    name, sep, path = spec.partition("=")
    if sep and name and "/" not in name and os.sep not in name:
        return name, path
    return None, spec


def load_dataset_spec(
    spec: str,
    *,
    data_dir: str | os.PathLike | None = None,
    format: str = "conll",
    language: str | None = None,
) -> Dataset:
    """Read one dataset given as a registry spec or a file path (see the module docstring).

    ``hf:NAME[@CONFIG]:SPLIT`` reads a Hugging Face dataset (see :mod:`tokstudy.data.hub`).
    """
    from tokstudy.data.hub import is_hf_spec, load_hf_dataset, parse_hf_spec

    if is_hf_spec(spec):
        name, config, split = parse_hf_spec(spec)
        return load_hf_dataset(name, split, config=config, language=language)
    path_part, at, lang = spec.rpartition("@")
    file_spec, file_lang = (path_part, lang) if at and "/" not in lang else (spec, None)
    p = Path(file_spec).expanduser()
    if p.is_file():
        if format not in FORMATS:
            raise DataFormatError(f"unknown dataset format {format!r}; expected one of {FORMATS}", path=p)
        from tokstudy.data.conll import read_conll

        stem = p.name.split(".")[0]
        return read_conll(p, name=stem, language=file_lang or language or "und", split=_split_from_name(p.name))
    if any(c in spec for c in "/\\") or p.suffix in (".conll", ".txt", ".gz", ".tsv", ".iob", ".bio"):
        raise DataNotFoundError(f"{p}: dataset file not found")
    from tokstudy.data.registry import list_datasets, load_dataset

    parts = spec.split(":")
    name = parts[0]
    if name not in list_datasets():
        raise DataNotFoundError(
            f"{spec!r} is neither a file nor a known dataset; known datasets: {', '.join(list_datasets())} "
            "(write NAME:SPLIT or NAME:LANGUAGE:SPLIT, e.g. conll2003:test, wikiann:ru:test)"
        )
    if len(parts) == 1:
        split, lang = "test", language
    elif len(parts) == 2:
        split, lang = parts[1], language
    elif len(parts) == 3:
        lang, split = parts[1], parts[2]
    else:
        raise ValueError(f"dataset spec {spec!r}: expected NAME, NAME:SPLIT or NAME:LANGUAGE:SPLIT")
    try:
        return load_dataset(name, split, language=lang, data_dir=data_dir)
    except ValueError as exc:
        raise DataFormatError(f"dataset {spec!r}: {exc}") from None


def _split_from_name(name: str) -> str:
    low = name.lower()
    for key, split in (("train", "train"), ("testa", "dev"), ("dev", "dev"), ("valid", "dev"), ("testb", "test"), ("test", "test")):
        if key in low:
            return split
    return "all"


def load_datasets(specs: Sequence[str], **kwargs) -> list[Dataset]:
    """Every dataset of ``specs`` (see :func:`load_dataset_spec`)."""
    if not specs:
        raise DataFormatError("no dataset given; pass --dataset NAME:SPLIT or --dataset PATH")
    return [load_dataset_spec(s, **kwargs) for s in specs]


def load_tokenizers(specs: Sequence[str], *, count_lone_boundary: bool = True) -> list[Segmenter]:
    """Every tokenizer of ``specs`` (``name=path`` or ``path``), with distinct names."""
    from tokstudy.tokenization.loading import load_tokenizer

    if not specs:
        raise TokenizerLoadError("no tokenizer given; pass --tokenizer PATH (a .model, tokenizer.json or directory)")
    out = []
    for spec in specs:
        name, path = parse_tokenizer_spec(spec)
        if not Path(path).expanduser().exists():
            raise TokenizerLoadError(f"{path}: tokenizer not found (expected a .model, tokenizer.json, vocab.txt or a directory)")
        out.append(load_tokenizer(path, name=name, count_lone_boundary=count_lone_boundary))
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise TokenizerLoadError(f"tokenizer names repeat ({names}); name them: --tokenizer NAME=PATH")
    return out


# ---- argparse helpers shared by the analysis subcommands -------------------------

def add_input_arguments(parser: argparse.ArgumentParser, *, datasets: bool = True) -> None:
    """``--tokenizer``, ``--dataset``, ``--format``, ``--language``, ``--data-dir``, ``--drop-lone-boundary``, ``--no-progress``."""
    parser.add_argument(
        "--tokenizer", "-t", action="append", default=[], metavar="[NAME=]PATH",
        help="tokenizer to study (repeat for several): a SentencePiece .model, a tokenizer.json, a vocab.txt, "
        "or a directory holding one; NAME= sets its display name",
    )
    if datasets:
        parser.add_argument(
            "--dataset", "-d", action="append", default=[], metavar="SPEC",
            help="dataset (repeat for several): NAME:SPLIT from the registry (conll2003:test, wikiann:ru:test) "
            "or a file path (path.conll, path.conll@de for its language)",
        )
        parser.add_argument("--format", default="conll", choices=FORMATS, help="format of dataset files given as paths (default conll: one word per line, tag in the last column)")
        parser.add_argument("--language", default=None, help="language code for dataset files given as paths")
    parser.add_argument("--data-dir", default=None, help="folder holding the corpora (default: $TOKSTUDY_DATA, else data/corpora)")
    parser.add_argument(
        "--drop-lone-boundary", action="store_true",
        help="do not count a lone word-boundary piece ('\u2581' alone before ',', or byte-level BPE's '\u0120' "
        "alone before digits) as a piece "
        "(default: count it, as the mALBERT paper does)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def add_bootstrap_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of sentences for the confidence intervals; 0: none (default 1000)")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")


def bootstrap_kwargs(args) -> dict:
    return {"n_resamples": args.resamples, "confidence": args.confidence, "seed": args.seed}


def table_from_args(args):
    """Load the datasets and tokenizers named on the command line and build the table."""
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.datalocation import data_root

    data_dir = data_root(args.data_dir) if args.data_dir else None
    datasets = load_datasets(args.dataset, data_dir=data_dir, format=args.format, language=args.language)
    segs = load_tokenizers(args.tokenizer, count_lone_boundary=not args.drop_lone_boundary)
    return segmentation_table(datasets, segs, progress=not args.no_progress)
