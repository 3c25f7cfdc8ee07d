"""A model directory's predictions on a dataset, made by ``pretrain evaluate`` in a child process and cached.

The app never imports torch: the model is run by ``python -m pretrain evaluate`` in a subprocess (which also
returns torch's memory to the system when it ends). Its progress bar (tqdm, on stderr) is read as it is
drawn, so a page can show how far it is (:class:`Progress`). The files it writes (per-word and per-piece
predictions) are kept under the app's model cache (``$TOKSTUDY_APP_MODEL_CACHE``, else
``$TMPDIR/tokstudy_app_models``), in a folder named by :func:`run_key`: the model's content (its
``config.json``, tokenizer files and weights: name, size, mtime), the dataset and the command's settings. A
second choice of the same model on the same dataset reads that folder and runs nothing. A run that fails
leaves nothing there; its error is the one line ``pretrain evaluate`` printed.

>>> Progress().fraction, parse_progress("predict:  40%|####      | 2/5 [00:01<00:01,  2.1batch/s]")
(0.0, (2, 5))
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from analysis_app.services.sources import DatasetSource

CACHE_ENV = "TOKSTUDY_APP_MODEL_CACHE"
#: the files whose content says which model a directory holds (weights by name, size and mtime: hashing
#: gigabytes of weights on every choice would cost more than it saves)
_DESCRIBING = ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")
_WEIGHTS = ("*.safetensors", "*.bin", "*.model")
#: settings of every run, part of the cache key: a dataset tag the model cannot predict is kept (scored
#: as missed) rather than refused, so that any model of the same entity types can be studied
SETTINGS = ("--unseen-labels", "keep", "--batch-size", "32")
#: the checkout holding ``pretrain`` (the child process runs there)
_ROOT = Path(__file__).resolve().parents[2]
_TQDM = re.compile(r"\|\s*(\d+)/(\d+)\s*\[")


class ModelRunError(RuntimeError):
    """``pretrain evaluate`` refused the model or the dataset; the message is the line it printed."""


@dataclass(frozen=True)
class ModelRun:
    """One model directory on one dataset, with where its files are kept.

    Attributes:
        model: the model directory (resolved).
        dataset: the dataset it predicts.
        folder: the cache folder of this run (named by :func:`run_key`).
    """

    model: Path
    dataset: DatasetSource
    folder: Path

    @property
    def predictions(self) -> Path:
        return self.folder / "predictions.tsv"

    @property
    def piece_predictions(self) -> Path:
        return self.folder / "pieces.tsv"

    @property
    def done(self) -> bool:
        return self.predictions.is_file() and self.piece_predictions.is_file()

    @property
    def name(self) -> str:
        """The model's name on the page: its folder's name."""
        return self.model.name


class Progress:
    """How far a run is, as its progress bar said last (thread-safe: the run writes, pages read)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done, self._total = 0, 0

    def update(self, done: int, total: int) -> None:
        with self._lock:
            self._done, self._total = done, total

    @property
    def fraction(self) -> float:
        with self._lock:
            return self._done / self._total if self._total else 0.0

    @property
    def text(self) -> str:
        with self._lock:
            return f"{self._done} of {self._total} batches" if self._total else "loading the model"


_PROGRESS: dict[Path, Progress] = {}
_PROGRESS_LOCK = threading.Lock()


def progress_of(run: ModelRun) -> Progress:
    """The progress of ``run`` (one object per run folder, shared by the run and every page showing it)."""
    with _PROGRESS_LOCK:
        return _PROGRESS.setdefault(run.folder, Progress())


def cache_root(environ=None) -> Path:
    """The folder the runs' files are kept in."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "tokstudy_app_models")


def dataset_spec(ds: DatasetSource) -> str:
    """What ``pretrain evaluate --dataset`` takes for ``ds``: a registry spec or the file.

    >>> dataset_spec(DatasetSource.registry("wikiann", "test", "ru"))
    'wikiann:ru:test'
    """
    if ds.kind == "registry":
        return ":".join(p for p in (ds.name, ds.language, ds.split) if p)
    return ds.path


def model_fingerprint(model: Path) -> str:
    """sha256 over the model's describing files (content) and weights (name, size, mtime)."""
    h = hashlib.sha256()
    for name in _DESCRIBING:
        path = model / name
        if path.is_file():
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    for pattern in _WEIGHTS:
        for path in sorted(model.glob(pattern)):
            st = path.stat()
            h.update(f"{path.name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def run_key(model: Path, ds: DatasetSource) -> str:
    """The cache folder's name: the model's fingerprint, the dataset (and its file's mtime) and the settings."""
    data = Path(ds.path)
    stamp = data.stat().st_mtime_ns if ds.kind != "registry" and data.is_file() else 0
    described = json.dumps([model_fingerprint(model), str(model), dataset_spec(ds), stamp, SETTINGS])
    return hashlib.sha256(described.encode()).hexdigest()[:24]


def plan(model: Path, ds: DatasetSource, root: Path | None = None) -> ModelRun:
    """The run of ``model`` on ``ds`` (done already when its files are in the cache)."""
    model = Path(model).resolve()
    return ModelRun(model, ds, (root or cache_root()) / run_key(model, ds))


def parse_progress(line: str) -> tuple[int, int] | None:
    """(done, total) from one drawing of a tqdm bar; ``None`` for any other line."""
    m = _TQDM.search(line)
    return (int(m.group(1)), int(m.group(2))) if m else None


def evaluate(run: ModelRun) -> ModelRun:
    """Make the files of ``run`` with ``pretrain evaluate`` (nothing to do when they exist); :class:`ModelRunError`
    with the command's own error line when it fails, leaving no files behind."""
    if run.done:
        return run
    run.folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=run.folder.name + ".", dir=run.folder.parent))
    try:
        _call(run, work)
        try:
            os.replace(work, run.folder)  # whole or not at all: a page never reads half a run
        except OSError:
            if not run.done:  # else another app process made the same run first: its files are as good
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return run


def _call(run: ModelRun, work: Path) -> None:
    """Run ``pretrain evaluate`` writing into ``work``, following its progress bar."""
    command = [sys.executable, "-m", "pretrain", "evaluate", "--model", str(run.model)]
    command += ["--dataset", dataset_spec(run.dataset), *SETTINGS]
    command += ["--predictions", str(work / run.predictions.name)]
    command += ["--piece-predictions", str(work / run.piece_predictions.name)]
    progress = progress_of(run)
    proc = subprocess.Popen(command, cwd=_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines = []
    for line in _drawings(proc.stderr):
        counted = parse_progress(line)
        if counted:
            progress.update(*counted)
        elif line.strip():
            lines.append(line.strip())
    if proc.wait() != 0:
        raise ModelRunError(_error_line(lines, proc.returncode))


def _drawings(stream):
    """The lines of the binary ``stream``, each redrawing of a tqdm bar (ended by ``\\r``) counted as one.

    Read as the bytes come (``os.read``), not by line: a bar ends its drawings with ``\\r`` only.
    """
    buffer = ""
    while chunk := os.read(stream.fileno(), 4096):
        buffer += chunk.decode("utf-8", errors="replace")
        *complete, buffer = re.split(r"[\r\n]", buffer)
        yield from complete
    if buffer:
        yield buffer


def _error_line(lines: list[str], code: int) -> str:
    """The command's error line (``pretrain evaluate: error: ...``), else its last line."""
    errors = [ln for ln in lines if ": error:" in ln]
    if errors:
        return errors[-1]
    return lines[-1] if lines else f"pretrain evaluate ended with exit status {code} and no message"
