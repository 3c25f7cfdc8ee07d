"""Path confinement: a path typed into the app must lie inside a directory the app was started with.

Symlinks are resolved before the check, so neither ``..`` nor a link pointing out of
an allowed directory escapes it. A relative path is tried against the working
directory the app was started from (so ``../shared/data/x`` means what it means on the
command line), then against each allowed directory in order.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp()); (root / "a.txt").write_text("x")
1
>>> confine_path("a.txt", [root]) == (root / "a.txt").resolve()
True
>>> is_allowed("../etc/passwd", [root])
False
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


class PathNotAllowedError(ValueError):
    """A path outside the allowed directories, or one that does not exist."""


def confine_path(path: str | os.PathLike, allowed: Sequence[str | os.PathLike]) -> Path:
    """The resolved ``path`` if it exists inside one of ``allowed``; else :class:`PathNotAllowedError`.

    Args:
        path: what the user typed (absolute, or relative to an allowed directory).
        allowed: the directories the app was started with.
    """
    text = os.fspath(path).strip()
    if not text or "\x00" in text:
        raise PathNotAllowedError("empty or invalid path")
    roots = [Path(a).expanduser().resolve() for a in allowed]
    if not roots:
        raise PathNotAllowedError(
            f"{text!r}: this app was started without --allow-dir or --results, so it may read no paths"
        )
    given = Path(text).expanduser()
    candidates = [given] if given.is_absolute() else [Path.cwd() / given] + [root / given for root in roots]
    escaped = False
    for k, cand in enumerate(candidates):
        resolved = cand.resolve()  # follows symlinks and folds '..'
        if not any(resolved == r or resolved.is_relative_to(r) for r in roots):
            # outside every root; from the working directory that only matters when the file is there
            escaped = escaped or k > 0 or given.is_absolute() or resolved.exists()
        elif resolved.exists():
            return resolved
    if escaped:
        raise PathNotAllowedError(
            f"{text!r} is outside the directories this app may read "
            f"({', '.join(map(str, roots))}); start it with --allow-dir DIR to add one"
        )
    raise PathNotAllowedError(f"{text!r}: no such file or directory inside {', '.join(map(str, roots))}")


def is_allowed(path: str | os.PathLike, allowed: Sequence[str | os.PathLike]) -> bool:
    """Whether :func:`confine_path` accepts ``path``."""
    try:
        confine_path(path, allowed)
    except PathNotAllowedError:
        return False
    return True
