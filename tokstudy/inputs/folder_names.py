"""Inputs whose names repeat, named by as many of their folders as it takes.

Datasets read from files (``amh/test.txt``, ``swa/test.txt``) and unnamed tokenizers (``a/tokenizer.json``,
``b/tokenizer.json``) are told apart the same way: by the folders their files lie in, the nearest first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence


def names_by_folder(name: str, paths: Sequence[Path]) -> list[str]:
    """``name`` under each path's nearest folders, as few as tell every path apart; the names under all their
    folders when none do (the caller decides what repeating names mean).

    >>> names_by_folder("test", [Path("/d/amh/test.txt"), Path("/d/swa/test.txt")])
    ['amh/test', 'swa/test']
    >>> names_by_folder("tok", [Path("/x/a/b/tok.json"), Path("/x/c/b/tok.json")])
    ['a/b/tok', 'c/b/tok']
    """
    labels = [name] * len(paths)
    for depth in range(1, max(len(p.parts) for p in paths)):
        labels = ["/".join((*p.parent.parts[-depth:], name)) for p in paths]
        if len(set(labels)) == len(labels):
            break
    return labels
