"""The attribution's second fitting process: the same fits to the bit as in process, a clean fallback
when the child cannot start or dies, and no process left behind on an error or Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tests.analysis.model_errors.test_attribution import confounded_corpus
from tokstudy.analysis.model_errors.attribution import Fits, design, fit_design
from tokstudy.analysis.model_errors.fit_worker import FitWorker, can_fork
from tokstudy.analysis.table import segmentation_table

needs_fork = pytest.mark.skipif(not can_fork(), reason="the fit process is forked, on Linux only")


def children() -> set[int]:
    """This process's child processes, zombies included (read from /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            out.add(int(stat.parent.name))
    return out


@pytest.fixture(scope="module")
def designs():
    import statsmodels.discrete.discrete_model  # noqa: F401  once, before the forks (they inherit it)

    ds, preds, seg, counts = confounded_corpus(seed=3, n_sentences=1500)
    table = segmentation_table([ds], [seg], progress=False)
    from tokstudy.analysis.model_errors.aligned_predictions import align_predictions

    aligned = align_predictions(table, preds)
    return [design(table, aligned, None, counts), design(table, aligned, None, None)]


def assert_same_bits(a: Fits, b: Fits) -> None:
    for name in ("adjusted", "unadjusted", "categorical"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            for u, v in zip(x, y):
                assert u.dtype == v.dtype and u.tobytes() == v.tobytes(), name
    assert a.levels == b.levels and a.notes == b.notes
    assert np.float64(a.partial_r).tobytes() == np.float64(b.partial_r).tobytes()
    assert np.float64(a.partial_p).tobytes() == np.float64(b.partial_p).tobytes()


@needs_fork
def test_the_child_fits_bit_identically_to_the_in_process_fit(designs):
    before = children()
    with FitWorker() as worker:
        assert worker.pid is not None and worker.pid != os.getpid() and worker.pid in children()
        got = [worker.fit(d, 0.9) for d in designs]
        assert worker.fallback == ""  # the child did the fits
    for d, g in zip(designs, got):
        assert_same_bits(g, fit_design(d, 0.9))
    assert not children() - before  # none left, zombies included


def test_in_process_when_not_started_or_no_fork(designs, monkeypatch):
    worker = FitWorker(start=False)
    assert worker.pid is None and worker.fallback == "not requested"
    assert_same_bits(worker.fit(designs[0], 0.95), fit_design(designs[0], 0.95))
    worker.close()
    monkeypatch.setattr("tokstudy.analysis.model_errors.fit_worker.can_fork", lambda: False)
    worker = FitWorker()
    assert worker.pid is None and worker.fallback == "no fork on this platform"
    assert_same_bits(worker.fit(designs[1], 0.95), fit_design(designs[1], 0.95))


@needs_fork
def test_falls_back_in_process_when_the_child_cannot_start(designs, monkeypatch):
    import multiprocessing.context

    def refuse(self):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", refuse)
    before = children()
    with FitWorker() as worker:
        assert worker.pid is None and worker.fallback.startswith("child did not start: BlockingIOError")
        assert_same_bits(worker.fit(designs[0], 0.95), fit_design(designs[0], 0.95))
    assert not children() - before  # none left, zombies included


@needs_fork
def test_falls_back_in_process_when_the_child_dies(designs):
    before = children()
    with FitWorker() as worker:
        os.kill(worker.pid, signal.SIGKILL)
        t = time.monotonic()
        got = worker.fit(designs[0], 0.95)
        assert time.monotonic() - t < 60  # no hang on the dead child
        assert worker.pid is None and worker.fallback.startswith("child gone")
    assert_same_bits(got, fit_design(designs[0], 0.95))
    assert not children() - before  # none left, zombies included


@needs_fork
def test_an_error_in_a_child_fit_is_raised_again_in_process(designs):
    d = designs[0]
    bad = type(d)(d.error, d.pieces[:-5], d.covariates, d.names, d.sentence, d.train_count, d.dropped)
    with pytest.raises(ValueError) as in_process:
        fit_design(bad, 0.95)
    before = children()
    with FitWorker() as worker:
        with pytest.raises(ValueError) as raised:
            worker.fit(bad, 0.95)
        assert worker.fallback.startswith("child failed: ValueError")
        assert str(raised.value) == str(in_process.value)
        assert_same_bits(worker.fit(d, 0.95), fit_design(d, 0.95))  # in process from then on
    assert not children() - before  # none left, zombies included


@needs_fork
def test_an_error_in_the_parent_stops_the_child():
    before = children()
    with pytest.raises(RuntimeError, match="reading failed"):
        with FitWorker() as worker:
            pid = worker.pid
            assert pid in children()
            raise RuntimeError("reading failed")
    assert not children() - before  # none left, zombies included
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@needs_fork
def test_ctrl_c_leaves_no_process_behind(tmp_path):
    """SIGINT to the whole process group, as a terminal sends it, while the child still imports."""
    script = tmp_path / "run.py"
    script.write_text(
        textwrap.dedent(
            """
            import signal, sys, time
            # as in a terminal: Ctrl-C raises KeyboardInterrupt (a process started in the background by a
            # non-interactive shell, as CI may be, inherits SIGINT ignored and would sleep through it)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            from tokstudy.analysis.model_errors.fit_worker import FitWorker
            with FitWorker() as worker:
                print(worker.pid, flush=True)
                time.sleep(60)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        child = int(proc.stdout.readline())
        os.kill(child, 0)  # alive
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not orphaned
        os.kill(child, 0)
