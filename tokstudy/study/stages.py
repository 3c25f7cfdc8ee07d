"""Cached, resumable pipeline stages.

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

>>> import tempfile
>>> p = Pipeline(tempfile.mkdtemp(), log=lambda m: None)
>>> p.run("double", {"x": 2}, lambda work: {"y": 4})
{'y': 4}
>>> p.run("double", {"x": 2}, lambda work: {"y": -1})   # cached
{'y': 4}
>>> p.executed
['double']
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Iterable

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


class Pipeline:
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
        missing = [d for d in deps if d not in self.keys]
        if missing:
            raise KeyError(f"stage {name!r} depends on {missing}, which have not run in this pipeline")
        key = stage_key(params, [self.keys[d] for d in deps])
        self.keys[name] = key
        done = self.record(name)
        if done is not None and done.get("key") == key:
            self.skipped.append(name)
            self.log(f"[cached] {name}")
            return done["outputs"]

        work = self.work_dir(name)
        stamp = work / _STAMP
        if work.exists() and (not stamp.is_file() or stamp.read_text() != key):
            shutil.rmtree(work)  # stale output of other settings
        resuming = stamp.is_file()
        work.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key)
        self.log(f"[{'resume' if resuming else 'run'}] {name}")
        start = time.time()
        outputs = fn(work)
        record = {
            "name": name,
            "key": key,
            "outputs": outputs,
            "seconds": round(time.time() - start, 2),
            "params": params,
            "deps": deps,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        tmp = self._records / f".{_safe(name)}.json.tmp"
        tmp.write_text(json.dumps(record, indent=2, default=str, ensure_ascii=False))
        os.replace(tmp, self._records / f"{_safe(name)}.json")
        self.executed.append(name)
        return outputs
