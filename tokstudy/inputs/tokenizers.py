"""Tokenizer specs -> tokenizers: ``[NAME=]PATH``, ``[NAME=]owner/name[@revision]`` or ``tiktoken:ENCODING``,
with distinct names.

A spec is a path (``runs/tok/sp-32000``, ``spm.model``, ``tokenizer.json``, a model directory written by
``save_pretrained``), optionally named: ``sp32k=runs/tok/sp-32000``. Unnamed, a directory is named after itself
and a file after its own name (:func:`~tokstudy.tokenization.sentencepiece_.default_name`); two files of one name
(``a/tokenizer.json``, ``b/tokenizer.json``) are told apart by their folders (``a/tokenizer``, ``b/tokenizer``).

A spec that is no local path but a Hugging Face hub name (``FacebookAI/xlm-roberta-base``) is the model's own
tokenizer, read from its folder in the hub cache (:func:`~tokstudy.inputs.hub_models.resolve_pretrained`) as
any model directory; unnamed, it is named after the model (``xlm-roberta-base``, ``name@v2`` for a pinned
revision), and two models of one name from two owners by their owners (``FacebookAI/xlm-roberta-base``).

>>> parse_tokenizer_spec("sp32k=runs/tok/sp-32000")
('sp32k', 'runs/tok/sp-32000')
>>> parse_tokenizer_spec("runs/tok/sp-32000")
(None, 'runs/tok/sp-32000')
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Sequence

from tokstudy.errors import TokenizerLoadError
from tokstudy.inputs.folder_names import names_by_folder
from tokstudy.inputs.hub_models import parse_hub_name, resolve_pretrained
from tokstudy.tokenization.base import Segmenter
from tokstudy.tokenization.loading import ACCEPTED, load_tokenizer

TIKTOKEN_PREFIX = "tiktoken:"


def parse_tokenizer_spec(spec: str) -> tuple[str | None, str]:
    """``(name or None, path)`` from ``name=path`` or ``path``."""
    name, sep, path = spec.partition("=")
    if sep and name and "/" not in name and os.sep not in name:
        return name, path
    return None, spec


def load_tokenizer_path(
    path: str | os.PathLike,
    *,
    name: str | None = None,
    count_lone_boundary: bool = True,
    tiktoken_pattern: str | None = None,
) -> Segmenter:
    """One tokenizer: a path that must exist (a file, a folder holding one, a model directory), a Hugging Face
    hub name (the model's folder in the hub cache, see the module docstring), or ``tiktoken:ENCODING``."""
    path = str(path)
    hub = None if Path(path).expanduser().exists() else parse_hub_name(path)
    if hub is not None:
        path, name = resolve_pretrained(path), name or hub.display
    elif not path.startswith(TIKTOKEN_PREFIX) and not Path(path).expanduser().exists():
        raise TokenizerLoadError(f"{path}: tokenizer not found (expected {ACCEPTED})")
    return load_tokenizer(path, name=name, count_lone_boundary=count_lone_boundary, tiktoken_pattern=tiktoken_pattern)


def load_tokenizers(
    specs: Sequence[str], *, count_lone_boundary: bool = True, tiktoken_pattern: str | None = None
) -> list[Segmenter]:
    """Every tokenizer of ``specs`` (``name=path``, ``path`` or ``tiktoken:ENCODING``), with distinct names.

    ``tiktoken_pattern`` is the pre-tokenizer pattern of every tiktoken rank file among them (see
    :func:`~tokstudy.tokenization.tiktoken_.pattern_for`).
    """
    if not specs:
        raise TokenizerLoadError(f"no tokenizer given; pass --tokenizer PATH ({ACCEPTED})")
    out, unnamed = [], {}
    for i, spec in enumerate(specs):
        name, path = parse_tokenizer_spec(spec)
        out.append(
            load_tokenizer_path(
                path, name=name, count_lone_boundary=count_lone_boundary, tiktoken_pattern=tiktoken_pattern
            )
        )
        if name is None and not path.startswith(TIKTOKEN_PREFIX):
            hub = None if Path(path).expanduser().exists() else parse_hub_name(path)
            # a hub model is told apart from another of its name by its owner, as a file by its folder
            unnamed[i] = Path(hub.repo_id) if hub is not None else Path(path).expanduser()
    renamed = _folder_names(out, unnamed)
    out = [_renamed(s, renamed[i]) if i in renamed else s for i, s in enumerate(out)]
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise TokenizerLoadError(f"tokenizer names repeat ({names}); name them: --tokenizer NAME=PATH")
    return out


def _folder_names(segmenters: Sequence[Segmenter], paths: dict[int, Path]) -> dict[int, str]:
    """The new names of the unnamed tokenizers whose default names repeat (``a/tokenizer.json``,
    ``b/tokenizer.json``): as many of their folders as it takes (``a/tokenizer``, ``b/tokenizer``), as dataset
    files are named (:func:`~tokstudy.inputs.folder_names.names_by_folder`)."""
    names = [s.name for s in segmenters]
    renamed = {}
    for name in {n for n in names if names.count(n) > 1}:
        idx = [i for i, n in enumerate(names) if n == name and i in paths]
        given = [Path(os.path.abspath(paths[i])) for i in idx]  # folders as the user named them, links kept
        if len(idx) < 2 or len({p.resolve() for p in given}) < len(given):
            continue  # named by the user, or the same file twice: refused by the caller
        labels = names_by_folder(name, given)
        if len(set(labels)) == len(labels):  # else no folder tells them apart: refused by the caller
            renamed.update(zip(idx, labels))
    return renamed


def _renamed(segmenter: Segmenter, name: str) -> Segmenter:
    """A copy of ``segmenter`` under another name, sharing its loaded model."""
    out = copy.copy(segmenter)
    out.name = name
    return out
