"""Find what a study's results directory holds: tokenizers, predictions, tables, datasets.

The layout is discovered, not assumed, so a partial or older run still opens. What is
recognised (any depth up to :data:`MAX_DEPTH`):

* tokenizers: a directory holding ``*.model`` and/or ``tokenizer.json`` (its name is the
  tokenizer's name), or a lone ``*.model`` file; directories below a ``tokenizers/``
  folder are preferred, and model checkpoints (holding ``config.json``) are skipped when
  such a folder exists, since they carry copies of the same vocabularies;
* predictions: ``*.tsv`` / ``*.txt`` files below a ``predictions/`` folder; the model
  is the path between ``predictions/`` and the file, the dataset the file's stem;
* tables: ``*.csv`` / ``*.json`` below a ``tables/`` folder;
* datasets: CoNLL files (``*.conll``, ``*.iob``, ``*.bio``, optionally ``.gz``) below a
  ``data/`` or ``datasets/`` folder.

>>> import tempfile, pathlib
>>> r = pathlib.Path(tempfile.mkdtemp()); (r / "tokenizers" / "spm-8k").mkdir(parents=True)
>>> _ = (r / "tokenizers" / "spm-8k" / "spiece.model").write_bytes(b"x")
>>> [t.name for t in discover(r).tokenizers]
['spm-8k']
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 6
_CONLL_SUFFIXES = (".conll", ".iob", ".bio", ".conll.gz", ".iob.gz", ".bio.gz")


@dataclass(frozen=True)
class Found:
    """One thing found in a results directory.

    Attributes:
        name: display name (tokenizer name, ``model/dataset`` for predictions, file name otherwise).
        path: where it is.
        model: for predictions, the model; else ``""``.
        dataset: for predictions, the dataset (file stem); else ``""``.
    """

    name: str
    path: Path
    model: str = ""
    dataset: str = ""


@dataclass(frozen=True)
class ResultsIndex:
    """Everything :func:`discover` found."""

    root: Path
    tokenizers: tuple[Found, ...] = ()
    predictions: tuple[Found, ...] = ()
    tables: tuple[Found, ...] = ()
    datasets: tuple[Found, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.tokenizers or self.predictions or self.tables or self.datasets)


def discover(root: str | os.PathLike) -> ResultsIndex:
    """Walk ``root`` (symlinks not followed) and index what it holds."""
    root = Path(root)
    if not root.is_dir():
        return ResultsIndex(root)
    tok_dirs: list[Path] = []
    lone_models: list[Path] = []
    preds: list[Found] = []
    tables: list[Found] = []
    datasets: list[Found] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        rel = here.relative_to(root)
        if len(rel.parts) >= MAX_DEPTH:
            dirnames[:] = []
        dirnames.sort()
        names = set(filenames)
        models = sorted(f for f in filenames if f.endswith(".model"))
        if "tokenizer.json" in names or (models and len(models) == 1 and here != root):
            tok_dirs.append(here)
        elif models:
            lone_models.extend(here / m for m in models)
        parts = rel.parts
        if "predictions" in parts:
            i = parts.index("predictions")
            model = "/".join(parts[i + 1 :]) or "model"
            for f in sorted(filenames):
                if f.endswith((".tsv", ".txt")) and not f.endswith(".pieces.tsv"):  # per-piece: the explorer's
                    stem = f.rsplit(".", 1)[0]
                    preds.append(Found(f"{model}/{stem}", here / f, model=model, dataset=stem))
        if "tables" in parts:
            tables.extend(Found(f, here / f) for f in sorted(filenames) if f.endswith((".csv", ".json")))
        if "data" in parts or "datasets" in parts:
            datasets.extend(Found(f, here / f) for f in sorted(filenames) if f.endswith(_CONLL_SUFFIXES))
    under_tok = [d for d in tok_dirs if "tokenizers" in d.relative_to(root).parts]
    if under_tok:
        tok_dirs = under_tok
    tok_dirs.sort(key=lambda d: _natural(str(d.relative_to(root))))
    tokenizers = [Found(d.name, d) for d in tok_dirs] + [Found(m.stem, m) for m in lone_models if not under_tok]
    return ResultsIndex(root, _unique(tokenizers), tuple(preds), tuple(tables), tuple(datasets))


def _natural(text: str) -> list:
    """Sort key putting ``spm-600`` before ``spm-1200`` (numbers compared as numbers)."""
    # "8k" is 8000: unigram-500 < unigram-1k < unigram-2k, as the study names its tokenizers
    text = re.sub(r"(\d+)k(?![a-z])", lambda m: str(int(m.group(1)) * 1000), text)
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text)]


def _unique(found: list[Found]) -> tuple[Found, ...]:
    """Give repeated names a ``-2``, ``-3`` suffix so every tokenizer name is distinct."""
    seen: dict[str, int] = {}
    out = []
    for f in found:
        n = seen.get(f.name, 0) + 1
        seen[f.name] = n
        out.append(f if n == 1 else Found(f"{f.name}-{n}", f.path, f.model, f.dataset))
    return tuple(out)
