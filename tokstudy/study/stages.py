"""Cached, resumable stages, and the StageRunner that runs them (the study's plan: :mod:`tokstudy.study.pipeline`).

A stage is a named unit of work (``"tokenizers"``, ``"pretrain/spm-4k"``, ...) whose
output lives in its own directory under the run's root. Its **key** is a hash of
its settings and of the keys of the stages it depends on, so changing one setting
invalidates exactly the stages downstream of it and nothing else.

* A finished stage leaves ``<root>/.stages/<name>.json`` with its key and outputs;
  re-running with the same key skips it.
* A stage that was interrupted has a work directory stamped with its key but no
  done-record; re-running calls it again on the same directory, so the stage can
  resume (the pre-trainer picks up its last checkpoint).
* A work directory stamped with another key is stale and is wiped before the stage
  runs again.
* Every attempt at a stage, wherever it runs, is recorded in its work directory as it runs
  (:mod:`tokstudy.study.attempts`); the done-record lists them, so that a stage resumed after a
  killed attempt says so and what that attempt cost (:meth:`StageRunner.attempts`).

>>> import tempfile
>>> p = StageRunner(tempfile.mkdtemp(), log=lambda m: None)
>>> p.run("double", {"x": 2}, lambda work: {"y": 4})
{'y': 4}
>>> p.run("double", {"x": 2}, lambda work: {"y": -1})   # cached
{'y': 4}
>>> p.executed
['double']
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, Sequence

from tokstudy.errors import TokstudyError
from tokstudy.fileio import atomic_write_text
from tokstudy.study.attempts import Attempt, read_attempts
from tokstudy.study.executors import Executor, InProcess, ProcessPool, StageFailed

#: bump to invalidate every cached stage after a change in what stages produce.
PIPELINE_VERSION = 1
_STAMP = ".stage-key"


def stage_key(params: Any, dep_keys: Iterable[str] = ()) -> str:
    """Stable hash of a stage's settings and its dependencies' keys."""
    blob = json.dumps(
        {"v": PIPELINE_VERSION, "params": params, "deps": list(dep_keys)},
        sort_keys=True,
        default=str,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _safe(name: str) -> str:
    return name.replace("/", "__")


class StageRunner:
    """Runs stages under ``root``, skipping those already done with the same key.

    Attributes:
        root: the run's results directory.
        executed: names of the stages that actually ran in this process, in order.
        skipped: names of the stages that were reused from a previous run.
        outcomes: the outputs of every stage run or reused by this runner, by name.
    """

    def __init__(self, root: str | os.PathLike, *, log: Callable[[str], None] = print):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._records = self.root / ".stages"
        self._records.mkdir(exist_ok=True)
        self.keys: dict[str, str] = {}
        self.executed: list[str] = []
        self.skipped: list[str] = []
        self.outcomes: dict[str, Any] = {}
        self.log = log

    def work_dir(self, name: str) -> Path:
        return self.root / name

    def record(self, name: str) -> dict | None:
        path = self._records / f"{_safe(name)}.json"
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError:  # a torn write: treat as not done
            return None

    def attempts(self, name: str) -> tuple[Attempt, ...]:
        """The attempts at the done stage ``name``, in the order they started, as its done-record lists them (the
        last one returned its outputs); none where the record lists none."""
        return tuple(Attempt.from_dict(a) for a in (self.record(name) or {}).get("attempts", []))

    def run(
        self,
        name: str,
        params: Any,
        fn: Callable[[Path], Any],
        *,
        deps: Iterable[str] = (),
        codec: type[Codec] | None = None,
    ) -> Any:
        """Run (or reuse) one stage whose body needs only its folder: ``fn(work_dir)`` returns its outputs (as
        :class:`Stage` says). The same path as :meth:`run_many`, in this process."""
        return self.run_many([Stage(name, params, partial(_folder_only, fn), tuple(deps), codec)])[0]

    def run_many(
        self,
        stages: Sequence[Stage],
        *,
        jobs: int = 1,
        executor: Executor | None = None,
        progress: bool = False,
    ) -> list:
        """Run (or reuse) ``stages``, up to ``jobs`` at a time, each in its own process, or on ``executor``; their
        outputs, in order (each decoded by its stage's codec when it is reused).

        A stage starts once the stages it depends on *within* ``stages`` are done; its ``fn(work, inputs)``
        gets the outputs of every stage it depends on as ``inputs`` (name -> outputs). Where it runs is the
        engine's business (:mod:`tokstudy.study.executors`): in this process (``jobs <= 1``, no ``executor``:
        :class:`~tokstudy.study.executors.InProcess`), in a pool of ``jobs`` spawned processes with
        ``cores // jobs`` compute threads each (:class:`ProcessPool`), or on a Dask cluster
        (:class:`~tokstudy.study.executors.DaskCluster`), started only when a stage must run. Off this process every
        ``fn`` must be picklable (a module-level function or a ``functools.partial`` of one). Whatever the engine,
        this process stamps a stage's folder before it is handed over and writes its done-record when its outputs
        come back: the stage cache is the one record of what is done. The first stage that fails stops the others
        from starting and its error is raised: in this process as the stage raised it; elsewhere naming the
        stage, where it ran and the last lines of its traceback.
        """
        stages = list(stages)
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise ValueError(f"run_many: a stage name appears twice in {names}")
        pending: list[tuple[Stage, str]] = []
        for stage in stages:  # keys first, in order: a stage's key depends on its dependencies' keys only
            key, cached = self._open(stage)
            if not cached:
                pending.append((stage, key))
        if pending:
            if executor is None:
                executor = ProcessPool(jobs) if jobs > 1 and len(pending) > 1 else InProcess()
            bar = _progress_bar(len(pending), progress)
            try:
                self._run_on(executor, pending, bar)
            finally:
                bar.close()
        return [self.outcomes[n] for n in names]

    def _run_on(self, executor: Executor, pending: list[tuple[Stage, str]], bar) -> None:
        """Prepare, hand over, time and close each stage once its dependencies are done, at most
        ``executor.slots`` at once: the one path every stage takes."""
        slots = executor.slots or len(pending)
        waiting = list(pending)
        batch = _names(pending)
        running: dict[concurrent.futures.Future, tuple[Stage, str, float]] = {}
        try:
            executor.start(self.root, self.log)
            while waiting or running:
                ready = [w for w in waiting if all(d in self.outcomes or d not in batch for d in w[0].deps)]
                for item in ready:
                    if len(running) >= slots:
                        break
                    stage, key = item
                    waiting.remove(item)
                    self._prepare(stage.name, key)
                    start = time.time()
                    future = executor.submit(stage.fn, self.work_dir(stage.name), self._inputs(stage))
                    running[future] = (stage, key, start)
                if not running:
                    raise RuntimeError(f"run_many: stages {[w[0].name for w in waiting]} wait on one another")
                done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    stage, key, start = running.pop(future)
                    out = _result(stage, future)
                    self._close(stage, key, stage.encode(out), time.time() - start)
                    self.outcomes[stage.name] = out
                    bar.update(1)
        finally:
            executor.stop()

    def _inputs(self, stage: Stage) -> dict[str, Any]:
        """The outputs of ``stage``'s dependencies (every one has run or been reused in this runner)."""
        return {d: self.outcomes[d] for d in stage.deps}

    def _open(self, stage: Stage) -> tuple[str, bool]:
        """The stage's key and whether it is done with that key (then logged as cached and its outputs, decoded,
        kept in :attr:`outcomes`)."""
        missing = [d for d in stage.deps if d not in self.keys]
        if missing:
            raise KeyError(f"stage {stage.name!r} depends on {missing}, which have not run in this pipeline")
        key = stage_key(stage.params, [self.keys[d] for d in stage.deps])
        self.keys[stage.name] = key
        done = self.record(stage.name)
        if done is None or done.get("key") != key:
            return key, False
        self.skipped.append(stage.name)
        self.log(f"[cached] {stage.name}")
        self.outcomes[stage.name] = stage.decode(done["outputs"])
        return key, True

    def _prepare(self, name: str, key: str) -> None:
        """Stamp the work dir with ``key``: a stale one (other settings) is wiped, an interrupted one with the
        same key is kept, so that the stage resumes."""
        work = self.work_dir(name)
        stamp = work / _STAMP
        if work.exists() and (not stamp.is_file() or stamp.read_text() != key):
            shutil.rmtree(work)  # stale output of other settings
        resuming = stamp.is_file()
        work.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key)
        self.log(f"[{'resume' if resuming else 'run'}] {name}")

    def _close(self, stage: Stage, key: str, outputs: Any, seconds: float) -> None:
        """Write the stage's done-record: its key, its outputs as JSON, its time and every attempt at it."""
        name = stage.name
        record = {
            "name": name,
            "key": key,
            "outputs": outputs,
            "seconds": round(seconds, 2),
            "attempts": [a.to_dict() for a in read_attempts(self.work_dir(name))],
            "params": stage.params,
            "deps": list(stage.deps),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        atomic_write_text(
            self._records / f"{_safe(name)}.json", json.dumps(record, indent=2, default=str, ensure_ascii=False)
        )
        self.executed.append(name)


class Codec(Protocol):
    """How a stage's outputs cross the disk: a frozen dataclass with ``to_json`` and a ``from_json`` classmethod
    (:mod:`tokstudy.study.outcomes`)."""

    def to_json(self) -> Any: ...

    @classmethod
    def from_json(cls, data: Any) -> Any: ...


@dataclass(frozen=True)
class Stage:
    """One stage for :meth:`StageRunner.run_many`: ``fn(work_dir, inputs)`` returns its outputs, an instance of
    ``codec`` (written to the done-record by its ``to_json``, read back by ``from_json``) or, without a codec, a
    JSON-able value kept as it is."""

    name: str
    params: Any
    fn: Callable[[Path, dict[str, Any]], Any]
    deps: tuple[str, ...] = ()
    codec: type[Codec] | None = None

    def encode(self, outputs: Any) -> Any:
        return outputs.to_json() if self.codec is not None else outputs

    def decode(self, data: Any) -> Any:
        return self.codec.from_json(data) if self.codec is not None else data


def _folder_only(fn: Callable[[Path], Any], work: Path, inputs: dict[str, Any]) -> Any:
    """A body that reads only its folder (:meth:`StageRunner.run`): its dependencies are there for its key."""
    return fn(work)


class StageError(TokstudyError, RuntimeError):
    """A stage run by :meth:`StageRunner.run_many` in another process or on a cluster failed: the message names the
    stage, where it ran and the last lines of its traceback (the CLI prints it, as a refused input)."""


def _result(stage: Stage, future: concurrent.futures.Future) -> Any:
    """The stage's outputs, or its failure as a :class:`StageError`."""
    try:
        return future.result()
    except StageFailed as exc:  # raised where the stage ran: it says where, with its traceback's last lines
        raise StageError(f"stage {stage.name!r} failed {exc}") from None
    except Exception as exc:  # the engine's own: a lost process pool, a worker that died too often
        raise StageError(f"stage {stage.name!r} failed: {type(exc).__name__}: {exc}") from exc


def _names(pending: list[tuple[Stage, str]]) -> set[str]:
    return {s.name for s, _ in pending}


def _progress_bar(total: int, enabled: bool):
    from tqdm.auto import tqdm  # deferred: ~50 ms (asyncio), only when a bar is shown

    return tqdm(total=total, desc="training runs", unit="run", disable=not enabled or total < 2, leave=False)
