"""Atomic, self-describing, verifiable checkpoints: one directory per step, the last K kept.

Layout of ``<output>/checkpoints/``::

    step_00000100/
        ds/...                 DeepSpeed's own files (model, optimizer, LR scheduler states)
        rng/rank_0.pt          python, numpy and torch RNG states of each process
        trainer_state.json     step, configs, vocabulary, tokenizer hash, versions (self-describing)
        manifest.json          sha256 and size of every other file; written last
    step_00000200/
    latest                     "step_00000200" (informational; loading scans and verifies instead)

A checkpoint is written under ``.tmp-step_...`` and renamed into place only once every file
and the manifest are on disk (fsync'd), so a run killed at any point (SIGKILL included) leaves
either a complete checkpoint or a temporary directory that is ignored and later removed.
Loading takes the newest directory whose manifest verifies; a corrupt or partial one (a
checksum or size mismatch, a missing file) is skipped with a warning, never loaded.

>>> mgr = CheckpointManager("run/checkpoints", keep_last=3)        # doctest: +SKIP
>>> mgr.save(100, write=lambda tmp: ..., state={"step": 100})       # doctest: +SKIP
>>> path, state = mgr.latest_valid()                                # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any, Callable

from tokstudy.fileio import atomic_write_text, remove_folder, replace_folder

FORMAT = "tokstudy-pretrain-checkpoint"
VERSION = 1
MANIFEST = "manifest.json"
STATE = "trainer_state.json"
_STEP_DIR = re.compile(r"^step_(\d{8,})$")


class CorruptCheckpointError(ValueError):
    """A checkpoint directory failed verification (named file, what was expected)."""


def step_dir_name(step: int) -> str:
    return f"step_{step:08d}"


def sha256_file(path: Path, block: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()


def write_manifest(directory: Path, *, step: int) -> dict[str, Any]:
    """Hash every file under ``directory``, then write ``manifest.json`` (forced to disk with the rest when the
    folder is put in place, :func:`~tokstudy.fileio.replace_folder`)."""
    files = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and p.name != MANIFEST):
        files[path.relative_to(directory).as_posix()] = {"sha256": sha256_file(path), "size": path.stat().st_size}
    manifest = {"format": FORMAT, "version": VERSION, "step": step, "files": files}
    _write_json(directory / MANIFEST, manifest)
    return manifest


def verify(directory: str | os.PathLike) -> dict[str, Any]:
    """The manifest of a complete, intact checkpoint; :class:`CorruptCheckpointError` otherwise."""
    directory = Path(directory)
    path = directory / MANIFEST
    if not path.is_file():
        raise CorruptCheckpointError(f"{directory}: no {MANIFEST} (a partial or foreign checkpoint)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorruptCheckpointError(f"{path}: unreadable manifest ({exc})") from exc
    if manifest.get("format") != FORMAT or not isinstance(manifest.get("files"), dict):
        raise CorruptCheckpointError(f"{path}: not a {FORMAT} manifest")
    for rel, entry in manifest["files"].items():
        file = directory / rel
        if not file.is_file():
            raise CorruptCheckpointError(f"{file}: listed in the manifest but missing")
        size = file.stat().st_size
        if size != entry["size"]:
            raise CorruptCheckpointError(f"{file}: {size} bytes, the manifest says {entry['size']} (truncated?)")
        if sha256_file(file) != entry["sha256"]:
            raise CorruptCheckpointError(f"{file}: sha256 differs from the manifest (corrupted)")
    return manifest


def read_state(directory: str | os.PathLike) -> dict[str, Any]:
    """``trainer_state.json`` of a checkpoint directory."""
    return json.loads((Path(directory) / STATE).read_text(encoding="utf-8"))


def _write_json(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True, default=str)


class CheckpointManager:
    """Saves and finds checkpoints under one directory (see the module docstring for the layout).

    In a multi-process run every process calls :meth:`save` (each writes its own files into the
    shared temporary directory); ``barrier`` synchronises them and only ``rank`` 0 finalises.

    Args:
        root: the checkpoints directory (created when missing).
        keep_last: complete checkpoints kept; older ones are removed after a newer one is in place.
        rank: this process's rank.
        barrier: a callable synchronising all processes (a no-op for one process).
    """

    def __init__(
        self, root: str | os.PathLike, *, keep_last: int, rank: int = 0, barrier: Callable[[], None] | None = None
    ):
        if keep_last < 1:
            raise ValueError(f"keep_last must be >= 1, got {keep_last}")
        self.root = Path(root)
        self.keep_last = keep_last
        self.rank = rank
        self.barrier = barrier or (lambda: None)

    def step_dirs(self) -> list[tuple[int, Path]]:
        """``(step, path)`` of every final-named checkpoint directory, newest first (not verified)."""
        if not self.root.is_dir():
            return []
        found = []
        for p in self.root.iterdir():
            m = _STEP_DIR.match(p.name)
            if m and p.is_dir():
                found.append((int(m.group(1)), p))
        return sorted(found, reverse=True)

    def save(self, step: int, *, write: Callable[[Path], None], state: dict[str, Any]) -> Path:
        """Write checkpoint ``step``: ``write(tmp_dir)`` runs on every rank, then rank 0 seals it.

        Returns the final directory. ``state`` (rank 0's) becomes ``trainer_state.json``.
        """
        final = self.root / step_dir_name(step)
        tmp = self.root / f".tmp-{final.name}"
        if self.rank == 0:
            self.root.mkdir(parents=True, exist_ok=True)
            # left by a killed run: a checkpoint being written, or an old one being removed (remove_folder)
            for stale in (*self.root.glob(".tmp-*"), *self.root.glob(".step_*.old-*")):
                shutil.rmtree(stale, ignore_errors=True)
            tmp.mkdir()
        self.barrier()
        write(tmp)
        self.barrier()
        if self.rank == 0:
            _write_json(tmp / STATE, {"format": FORMAT, "version": VERSION, **state, "step": step})
            write_manifest(tmp, step=step)
            # every file forced to disk, then the rename; re-saving the same step (e.g. the final checkpoint
            # after a periodic one) replaces it
            replace_folder(tmp, final)
            atomic_write_text(self.root / "latest", final.name + "\n", durable=True)
            self._prune()
        self.barrier()
        return final

    def _prune(self) -> None:
        for _, path in self.step_dirs()[self.keep_last :]:
            remove_folder(path)  # a kill half-way leaves a hidden folder, not a half-deleted checkpoint

    def latest_valid(self) -> tuple[Path, dict[str, Any]] | None:
        """The newest checkpoint that verifies, with its trainer state; ``None`` when there is none.

        Corrupt or partial checkpoints are skipped with a ``RuntimeWarning`` naming what failed.
        """
        for _, path in self.step_dirs():
            try:
                verify(path)
                return path, read_state(path)
            except (CorruptCheckpointError, OSError, json.JSONDecodeError) as exc:
                warnings.warn(f"skipping checkpoint {path}: {exc}", RuntimeWarning, stacklevel=2)
        return None
