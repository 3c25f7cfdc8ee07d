"""Where the real corpora live.

The data location is resolved, first match wins, from:

1. an explicit argument (the CLI's ``--data-dir`` flag),
2. the ``TOKSTUDY_DATA`` environment variable (``make`` sets it to ``../shared/data`` when that exists),
3. ``data/corpora`` inside the checkout, where ``data/download.py`` writes for users who are online.

A relative location is made absolute at once, so it keeps meaning the same folder when
the process (or a page of the app) changes directory: it is taken from the current
directory, or, where nothing is there but the checkout has it, from the checkout root
(the Makefile's ``../shared/data`` is written relative to the checkout). Symlinks in it are kept, not
resolved (``..`` is folded by name, as the shell's ``cd`` does): a report names the location as the user
gave it (``../shared/data``), not the folder a link points to.

Each corpus is a sub-directory named as in :data:`CORPORA`. Nothing here reads the
data; readers take explicit paths, and :func:`corpus_dir` turns a corpus name into one.

>>> str(data_root("/tmp/somewhere"))  # an explicit location wins over $TOKSTUDY_DATA
'/tmp/somewhere'
"""

from __future__ import annotations

import os
from pathlib import Path

from tokstudy.errors import DataNotFoundError

ENV_VAR = "TOKSTUDY_DATA"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = PROJECT_ROOT / "data" / "corpora"

#: Known corpora and the sub-directory each lives in.
CORPORA = {
    "conll2003": "conll2003_en",
    "conll2002_es": "conll2002_es",
    "wikiann": "wikiann",
    "ner_ja_wikipedia": "ner_ja_wikipedia",
    "snips": "snips",
    "atis": "atis",
    "sst2": "sst2",
    "raw_text": "raw_text",
    "raw_text_large": "raw_text_large",
    "xquad_parallel": "xquad_parallel",
}


def data_root(explicit: str | os.PathLike | None = None) -> Path:
    """The directory that holds the corpora (it may not exist)."""
    if explicit:
        return absolute(explicit)
    env = os.environ.get(ENV_VAR)
    if env:
        return absolute(env)
    return DEFAULT_ROOT


def absolute(path: str | os.PathLike) -> Path:
    """``path`` made absolute: from the current directory, else from the checkout root where only that has it.

    Symlinks are not resolved (``os.path.abspath``, not ``Path.resolve``): the result names the link the user
    gave, so :func:`shown_path` gives back ``../shared/data`` when ``../shared`` is a link.

    >>> absolute("/tmp/x") == Path("/tmp/x")
    True
    """
    path = Path(path).expanduser()
    if path.is_absolute():
        return path
    here = Path.cwd() / path
    if not here.exists() and (PROJECT_ROOT / path).exists():
        return Path(os.path.normpath(PROJECT_ROOT / path))
    return Path(os.path.normpath(here))


def corpus_dir(name: str, root: str | os.PathLike | None = None) -> Path:
    """The directory of corpus ``name``; raises :class:`DataNotFoundError` if absent."""
    sub = CORPORA.get(name, name)
    path = data_root(root) / sub
    if not path.is_dir():
        raise DataNotFoundError(
            f"corpus {name!r} not found at {path}. Set --data-dir or ${ENV_VAR} to the folder "
            f"that holds it, or run `python data/download.py` (online) to fetch the public corpora."
        )
    return path


def has_corpus(name: str, root: str | os.PathLike | None = None) -> bool:
    """Whether corpus ``name`` is present at the data location."""
    return (data_root(root) / CORPORA.get(name, name)).is_dir()


def shown_path(path: str | os.PathLike, data_dir: str | os.PathLike | None = None) -> str:
    """``path`` as a report may name it: never absolute, since reports are shared beyond this machine (a message
    on the terminal names it as typed: :func:`said_path`).

    Relative to the data location when it lies there (``conll2003_en/eng.testb``), else to the
    current directory (which may climb, ``../shared/data``). A relative ``path`` is kept as given.

    >>> shown_path("/data/corpora/conll2003_en/eng.testb", "/data/corpora")
    'conll2003_en/eng.testb'
    >>> shown_path("my/file.conll")
    'my/file.conll'
    """
    p = Path(path).expanduser()
    if not p.is_absolute():
        return p.as_posix()
    inside = _inside(p, data_root(data_dir))
    if inside is not None:
        return inside
    try:
        return Path(os.path.relpath(p, Path.cwd())).as_posix()
    except ValueError:  # another drive (Windows): the name is all that can be shown without the machine's layout
        return p.name


def said_path(path: str | os.PathLike, data_dir: str | os.PathLike | None = None) -> str:
    """``path`` as a message on the terminal names it: as the user typed it, absolute or relative.

    A file the data location holds is named relative to it (``conll2002_es/esp.testb``): the user named it by a
    registry name, so no path of theirs is there to repeat. Reports and files written, which travel, use
    :func:`shown_path` instead, which never names an absolute path.

    >>> said_path("/tmp/mine/f.conll", "/data/corpora"), said_path("my/file.conll", "/data/corpora")
    ('/tmp/mine/f.conll', 'my/file.conll')
    >>> said_path("/data/corpora/conll2003_en/eng.testb", "/data/corpora")
    'conll2003_en/eng.testb'
    """
    p = Path(path)
    if p.is_absolute():
        inside = _inside(p, data_root(data_dir))
        if inside is not None:
            return inside
    return str(path)


def _inside(p: Path, root: Path) -> str | None:
    """``p`` relative to the data location ``root`` (its link's path or its target) when it lies there."""
    for base in (root, root.resolve()):
        if p.is_relative_to(base) and p != base:
            return p.relative_to(base).as_posix()
    return None


def shown_spec(spec: str, data_dir: str | os.PathLike | None = None) -> str:
    """A dataset spec as a report names it: a registry name as is, a file by :func:`shown_path`
    (a ``@LANG`` suffix kept).

    >>> shown_spec("conll2003:test"), shown_spec("/data/corpora/x/my.conll@de", "/data/corpora")
    ('conll2003:test', 'x/my.conll@de')
    """
    head, at, lang = spec.rpartition("@")
    path, suffix = (head, at + lang) if at and head and "/" not in lang else (spec, "")
    if not Path(path).expanduser().is_absolute():
        return spec
    return shown_path(path, data_dir) + suffix
