"""A pretrained model as the user names it -> the folder holding its files.

A model is named either by a local directory (what ``save_pretrained`` writes: ``config.json``, the
weights, the tokenizer files) or by a Hugging Face hub name ``owner/name``, optionally pinned with
``@revision`` (a branch, a tag or a commit). A hub name is resolved to its snapshot folder in the Hugging
Face cache, the folder ``from_pretrained`` itself would read, so a tokenizer loaded from it is the one the
model was trained with:

* from the cache alone when ``HF_HUB_OFFLINE=1`` or when the cache already holds that revision (nothing is
  fetched, so a cached model gives the same folder online and offline);
* downloaded otherwise (``huggingface_hub.snapshot_download``).

The cache is the one ``huggingface_hub`` uses, read when a name is resolved (not when a module is imported):
``HF_HUB_CACHE``, else ``HF_HOME/hub``, else ``~/.cache/huggingface/hub``. ``huggingface_hub`` is imported
only for a hub name; it comes with ``tokenizers`` and ``transformers``, and its absence is reported, not
raised as an ImportError.

>>> parse_hub_name("FacebookAI/xlm-roberta-base@main")
HubName(repo_id='FacebookAI/xlm-roberta-base', revision='main')
>>> parse_hub_name("runs/tok/sp-8000") is None     # two slashes: a path, never a hub name
True
>>> parse_hub_name("google-bert/bert-base-cased").display
'bert-base-cased'
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tokstudy.errors import MissingDependencyError, PretrainedNotFoundError

#: ``owner/name[@revision]``: the characters the hub allows in a repository id; a revision may hold slashes
#: (``refs/pr/1``)
_HUB_NAME = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.\-]*/[A-Za-z0-9][\w.\-]*)(?:@(?P<rev>[\w.\-/]+))?$")
#: the values ``huggingface_hub`` reads as true in ``HF_HUB_OFFLINE``
_TRUE = {"1", "ON", "YES", "TRUE"}


@dataclass(frozen=True)
class HubName:
    """A Hugging Face hub model name, ``owner/name`` and the revision asked for."""

    #: ``owner/name``
    repo_id: str
    #: a branch, tag or commit; ``None`` for the default branch
    revision: str | None = None

    @property
    def display(self) -> str:
        """The model's own name (``name`` of ``owner/name``), the readable default name of its tokenizer;
        a pinned revision is kept (``name@v2``), so two revisions of one model stay apart."""
        name = self.repo_id.rpartition("/")[2]
        return f"{name}@{self.revision}" if self.revision else name

    def __str__(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")


def parse_hub_name(spec: str | os.PathLike) -> HubName | None:
    """The hub name ``spec`` spells (``owner/name[@revision]``), or ``None`` when it cannot be one.

    Whether a local path of that name exists is not looked at: :func:`resolve_pretrained` tries the path first.
    """
    text = str(spec)
    match = _HUB_NAME.match(text)
    if match is None or text.startswith((".", "~")) or ".." in match["repo"] or "--" in match["repo"]:
        return None
    return HubName(match["repo"], match["rev"])


def hub_cache_dir() -> Path:
    """The Hugging Face hub cache, from the environment as it is now (see the module docstring)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "huggingface" / "hub"


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` forbids the network (read now, as :func:`hub_cache_dir` reads the cache)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in _TRUE


def resolve_pretrained(spec: str | os.PathLike) -> Path:
    """The folder of the model ``spec`` names: an existing local path as it is, a hub name's cached snapshot.

    >>> resolve_pretrained("runs/albert-ner")                  # doctest: +SKIP
    PosixPath('runs/albert-ner')
    >>> resolve_pretrained("google-bert/bert-base-cased")      # doctest: +SKIP
    PosixPath('/home/me/.cache/huggingface/hub/models--google-bert--bert-base-cased/snapshots/cd5ef92...')

    Raises:
        PretrainedNotFoundError: one line naming the model and how to fetch it, when it is neither a local
            path nor a hub name, or not in the cache while offline (at once: no network, no retry), or the
            download fails.
        MissingDependencyError: a hub name without ``huggingface_hub`` installed.
    """
    local = Path(spec).expanduser()
    if local.exists():
        return local
    hub = parse_hub_name(spec)
    if hub is None:
        raise PretrainedNotFoundError(
            f"{spec}: no such file or directory (expected a model directory written by save_pretrained, "
            f"or a Hugging Face hub name owner/name[@revision])"
        )
    try:
        from huggingface_hub import snapshot_download  # deferred: optional (comes with tokenizers), for a hub name
    except ImportError:
        raise MissingDependencyError(
            f"{spec}: a Hugging Face hub name needs the huggingface_hub package: pip install huggingface_hub"
        ) from None
    cache = hub_cache_dir()
    try:  # the cache first: what it holds is used as it is, online or not
        return Path(snapshot_download(hub.repo_id, revision=hub.revision, cache_dir=cache, local_files_only=True))
    except Exception as exc:  # not cached (or cached in part): fetched below unless offline
        if hub_offline():
            raise PretrainedNotFoundError(
                f"{spec}: no such directory, and the Hugging Face model {hub} is not in the cache {cache} "
                f"(HF_HUB_OFFLINE=1); fetch it with `{fetch_command(hub)}` or give a local model directory"
            ) from exc
    try:
        return Path(snapshot_download(hub.repo_id, revision=hub.revision, cache_dir=cache))
    except Exception as exc:  # the hub, the network or the disk: say which model failed, and why, in one line
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise PretrainedNotFoundError(
            f"{spec}: no such directory, and downloading the Hugging Face model {hub} failed "
            f"({type(exc).__name__}: {reason}); fetch it with `{fetch_command(hub)}` or give a local model directory"
        ) from exc


def fetch_command(hub: HubName) -> str:
    """The shell command that puts ``hub`` into the cache, for the installed ``huggingface_hub``
    (``hf download``, or ``huggingface-cli download`` before the ``hf`` command existed)."""
    tool = "hf" if importlib.util.find_spec("huggingface_hub.cli.hf") is not None else "huggingface-cli"
    return f"{tool} download {hub.repo_id}" + (f" --revision {hub.revision}" if hub.revision else "")
