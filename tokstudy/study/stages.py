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
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tokstudy.errors import TokstudyError
from tokstudy.fileio import atomic_write_text
from tokstudy.study.attempts import Attempt, read_attempts, recorded
from tokstudy.study.executors import Executor, ProcessPool, StageFailed, this_process

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
    """

    def __init__(self, root: str | os.PathLike, *, log: Callable[[str], None] = print):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._records = self.root / ".stages"
        self._records.mkdir(exist_ok=True)
        self.keys: dict[str, str] = {}
        self.executed: list[str] = []
        self.skipped: list[str] = []
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
        fn: Callable[[Path], dict],
        *,
        deps: Iterable[str] = (),
    ) -> dict:
        """Run stage ``name`` (or reuse it) and return its outputs dict.

        ``fn(work_dir)`` does the work inside ``work_dir`` and returns a JSON-able
        dict of outputs (paths relative to the root where possible).
        """
        deps = list(deps)
        key, cached = self._open(name, params, deps)
        if cached is not None:
            return cached
        start = time.time()
        with recorded(self.work_dir(name), this_process()):
            outputs = fn(self.work_dir(name))
        self._close(name, key, params, deps, outputs, time.time() - start)
        return outputs

    def run_many(
        self,
        stages: Sequence[Stage],
        *,
        jobs: int = 1,
        executor: Executor | None = None,
        progress: bool = False,
    ) -> list[dict]:
        """Run (or reuse) ``stages``, up to ``jobs`` at a time, each in its own process, or on ``executor``; their
        outputs, in order.

        A stage starts once the stages it depends on *within* ``stages`` are done; its ``fn(work, inputs)``
        gets the outputs of every stage it depends on as ``inputs`` (name -> outputs). Where it runs is the
        engine's business (:mod:`tokstudy.study.executors`): in this process (``jobs <= 1``, no ``executor``), in a
        pool of ``jobs`` spawned processes with ``cores // jobs`` compute threads each (:class:`ProcessPool`), or
        on a Dask cluster (:class:`~tokstudy.study.executors.DaskCluster`), started only when a stage must run.
        Off this process every ``fn`` must be picklable (a module-level function or a ``functools.partial`` of
        one). Whatever the engine, this process stamps a stage's folder before it is handed over and writes its
        done-record when its outputs come back: the stage cache is the one record of what is done. The first
        stage that fails stops the others from starting and its error is raised, naming the stage, where it ran
        and the last lines of its traceback.
        """
        stages = list(stages)
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise ValueError(f"run_many: a stage name appears twice in {names}")
        outputs: dict[str, dict] = {}
        pending: list[tuple[Stage, str]] = []
        for stage in stages:  # keys first, in order: a stage's key depends on its dependencies' keys only
            key, cached = self._open(stage.name, stage.params, list(stage.deps), prepare=False)
            if cached is not None:
                outputs[stage.name] = cached
            else:
                pending.append((stage, key))
        if not pending:
            return [outputs[n] for n in names]
        if executor is None and jobs > 1 and len(pending) > 1:
            executor = ProcessPool(jobs)
        bar = _progress_bar(len(pending), progress)
        try:
            if executor is None:
                for stage, key in pending:
                    self._prepare(stage.name, key)
                    start = time.time()
                    with recorded(self.work_dir(stage.name), this_process()):
                        out = stage.fn(self.work_dir(stage.name), self._inputs(stage, outputs))
                    self._close(stage.name, key, stage.params, list(stage.deps), out, time.time() - start)
                    outputs[stage.name] = out
                    bar.update(1)
            else:
                self._run_on(executor, pending, outputs, bar)
        finally:
            bar.close()
        return [outputs[n] for n in names]

    def _run_on(self, executor: Executor, pending: list[tuple[Stage, str]], outputs: dict[str, dict], bar) -> None:
        """Hand each stage to ``executor`` once its dependencies are done, at most ``executor.slots`` at once."""
        slots = executor.slots or len(pending)
        waiting = list(pending)
        batch = _names(pending)
        running: dict[concurrent.futures.Future, tuple[Stage, str, float]] = {}
        failed = True
        try:
            executor.start(self.root, self.log)
            while waiting or running:
                ready = [w for w in waiting if all(d in outputs or d not in batch for d in w[0].deps)]
                for item in ready:
                    if len(running) >= slots:
                        break
                    stage, key = item
                    waiting.remove(item)
                    self._prepare(stage.name, key)
                    future = executor.submit(stage.fn, self.work_dir(stage.name), self._inputs(stage, outputs))
                    running[future] = (stage, key, time.time())
                if not running:
                    raise RuntimeError(f"run_many: stages {[w[0].name for w in waiting]} wait on one another")
                done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    stage, key, start = running.pop(future)
                    out = _result(stage, future)
                    self._close(stage.name, key, stage.params, list(stage.deps), out, time.time() - start)
                    outputs[stage.name] = out
                    bar.update(1)
            failed = False
        finally:
            executor.stop(failed=failed)

    def _inputs(self, stage: Stage, outputs: dict[str, dict]) -> dict[str, dict]:
        """The outputs of ``stage``'s dependencies: from this batch, else from their done-records."""
        return {d: outputs[d] if d in outputs else (self.record(d) or {}).get("outputs", {}) for d in stage.deps}

    def _open(self, name: str, params: Any, deps: list[str], *, prepare: bool = True) -> tuple[str, dict | None]:
        """The stage's key and, when it is done with that key, its outputs (logged as cached); else, with
        ``prepare``, its work dir made ready (:meth:`_prepare`)."""
        missing = [d for d in deps if d not in self.keys]
        if missing:
            raise KeyError(f"stage {name!r} depends on {missing}, which have not run in this pipeline")
        key = stage_key(params, [self.keys[d] for d in deps])
        self.keys[name] = key
        done = self.record(name)
        if done is not None and done.get("key") == key:
            self.skipped.append(name)
            self.log(f"[cached] {name}")
            return key, done["outputs"]
        if prepare:
            self._prepare(name, key)
        return key, None

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

    def _close(self, name: str, key: str, params: Any, deps: list[str], outputs: dict, seconds: float) -> None:
        record = {
            "name": name,
            "key": key,
            "outputs": outputs,
            "seconds": round(seconds, 2),
            "attempts": [a.to_dict() for a in read_attempts(self.work_dir(name))],
            "params": params,
            "deps": deps,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        atomic_write_text(
            self._records / f"{_safe(name)}.json", json.dumps(record, indent=2, default=str, ensure_ascii=False)
        )
        self.executed.append(name)


@dataclass(frozen=True)
class Stage:
    """One stage for :meth:`StageRunner.run_many`: ``fn(work_dir, inputs)`` returns its JSON-able outputs."""

    name: str
    params: Any
    fn: Callable[[Path, dict[str, dict]], dict]
    deps: tuple[str, ...] = ()


class StageError(TokstudyError, RuntimeError):
    """A stage run by :meth:`StageRunner.run_many` in another process or on a cluster failed: the message names the
    stage, where it ran and the last lines of its traceback (the CLI prints it, as a refused input)."""


def _result(stage: Stage, future: concurrent.futures.Future) -> dict:
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
