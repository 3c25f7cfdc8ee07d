"""A Hugging Face hub cache laid out by hand in a temporary folder, and a guard that no test reaches the network.

The layout is the one ``huggingface_hub`` writes (``models--owner--name/refs/main`` holding a commit,
``models--owner--name/snapshots/<commit>/<files>``), so the resolver and the loaders read it as they would a
real cache; tests point ``HF_HUB_CACHE`` (or ``HF_HOME``) at it and set ``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import shutil
import socket
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

#: a commit id of the shape the hub gives (40 hex digits)
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def put_in_cache(
    cache: Path, repo_id: str, files: Path | dict[str, str], *, commit: str = COMMIT, refs: tuple[str, ...] = ("main",)
) -> Path:
    """Lay ``files`` (a folder to copy, or ``{name: text}``) out as the snapshot ``commit`` of ``repo_id``.

    Each of ``refs`` (branches or tags) points at the commit. Returns the snapshot folder.
    """
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    if isinstance(files, Path):
        for f in sorted(files.iterdir()):
            shutil.copy(f, snapshot / f.name)
    else:
        for name, text in files.items():
            (snapshot / name).write_text(text, encoding="utf-8")
    (repo / "refs").mkdir(exist_ok=True)
    for ref in refs:
        (repo / "refs" / ref).write_text(commit)
    return snapshot


def offline_cache(tmp_path: Path, monkeypatch) -> Path:
    """An empty hub cache under ``tmp_path``, offline, with every socket connection refused: the cache folder."""
    cache = tmp_path / "hf-hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    no_network(monkeypatch)
    return cache


def no_network(monkeypatch) -> None:
    """Refuse every outgoing connection, so a test that would reach the hub fails at once instead."""

    def refuse(self, address, *args, **kwargs):
        raise OSError(f"network access in a test: {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


@contextmanager
def no_waiting():
    """Fail on any ``time.sleep`` inside the block: a refusal must come at once, not after a retry loop's back-off
    (with every socket refused, nothing else can make it slow)."""

    def refuse(seconds):
        raise AssertionError(f"waited {seconds} s: a retry loop where one line was expected")

    with mock.patch("time.sleep", refuse):
        yield
