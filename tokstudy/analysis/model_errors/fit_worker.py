"""Fitting the attribution's models in a second process that imports statsmodels while the first reads.

Importing statsmodels (with the pandas, scipy.stats and patsy it pulls in) is about half of
``tokstudy attribute``'s time, and a thread cannot overlap it with reading the datasets: both run
Python code holding the GIL. :class:`FitWorker` forks a child at once; the child imports statsmodels
on the second core while the parent reads, segments, aligns and builds the designs, then fits each
:class:`~tokstudy.analysis.model_errors.attribution.Design` the parent sends (numpy arrays, pickled) with the very
:func:`~tokstudy.analysis.model_errors.attribution.fit_design` the in-process path runs, and sends the
:class:`~tokstudy.analysis.model_errors.attribution.Fits` back: the results are bit-identical.

This belongs to the command-line edge (``tokstudy.cli.attribute``); :func:`attribute_errors` itself
fits in process. Whenever the child cannot help, fitting goes on in process: no ``fork`` on this
platform, the child fails to start, dies, or a fit raises in it (in process it then raises again,
with its own traceback). :meth:`FitWorker.close` (also on an error or Ctrl-C in the parent, through
``with``) stops the child and waits for it, so none is left behind; the child ignores Ctrl-C (the
parent stops it) and exits by itself when the parent's end of the pipe closes.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when needed: the child starts before anything more is imported
    from tokstudy.analysis.model_errors.attribution import Design, Fits

#: seconds :meth:`FitWorker.close` waits for the child to finish before it kills it
STOP_TIMEOUT = 5.0


def _serve(conn, parent_end) -> None:
    """The child: import the fitter at once, then fit each ``(design, confidence)`` received until ``None``."""
    parent_end.close()  # else the pipe never reads as closed when the parent is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # deferred: the child imports the heavy fitter (scipy.stats, statsmodels) while the parent reads
        import scipy.stats  # noqa: F401  partial correlation's p-value
        import statsmodels.discrete.discrete_model  # noqa: F401
        import threadpoolctl  # noqa: F401
    except BaseException:  # noqa: BLE001  fit_design reports it again, in the parent, in process
        pass
    from tokstudy.analysis.model_errors.attribution import fit_design  # deferred: after the heavy imports above

    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        try:
            reply = ("ok", fit_design(*request))
        except BaseException as exc:  # noqa: BLE001
            reply = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def can_fork() -> bool:
    """Whether a child can be forked cheaply and safely here (Linux; macOS forks badly with some libraries)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


class FitWorker:
    """A child process that fits designs for the parent; falls back to fitting in process.

    ``start=False`` (or a platform without ``fork``) fits in process from the start. Use as a
    context manager, or call :meth:`close`.
    """

    def __init__(self, start: bool = True):
        self._proc = None
        self._conn = None
        #: why fitting runs in process ("" while the child serves)
        self.fallback = "" if start else "not requested"
        if start and not can_fork():
            self.fallback = "no fork on this platform"
        if self.fallback:
            return
        ctx = multiprocessing.get_context("fork")
        parent_end, child_end = ctx.Pipe()
        for stream in (sys.stdout, sys.stderr):  # the child would flush a copy of what is buffered
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        try:
            proc = ctx.Process(target=_serve, args=(child_end, parent_end), daemon=True, name="tokstudy-fit")
            proc.start()
        except (OSError, RuntimeError, ValueError) as exc:
            parent_end.close()
            child_end.close()
            self.fallback = f"child did not start: {type(exc).__name__}: {exc}"
            return
        child_end.close()
        self._proc, self._conn = proc, parent_end

    @property
    def pid(self) -> int | None:
        """The child's process id (None when fitting in process)."""
        return None if self._proc is None else self._proc.pid

    def fit(self, d: Design, confidence: float) -> Fits:
        """:func:`fit_design` of ``d``, in the child when it serves, else in process."""
        if self._conn is not None:
            try:
                self._conn.send((d, confidence))
                status, value = self._conn.recv()
            except Exception as exc:  # noqa: BLE001  pipe closed, child gone, a reply that does not unpickle
                self._stop(kill=True)
                self.fallback = f"child gone: {type(exc).__name__}"
            else:
                if status == "ok":
                    return value
                self._stop(kill=False)
                self.fallback = f"child failed: {value}"
        # deferred: the fitter (numpy, statsmodels on use) is not imported before the child is forked
        from tokstudy.analysis.model_errors.attribution import fit_design

        return fit_design(d, confidence)

    def _stop(self, kill: bool) -> None:
        conn, proc = self._conn, self._proc
        self._conn = self._proc = None
        if conn is not None:
            if not kill:
                try:
                    conn.send(None)
                except (OSError, ValueError):
                    pass
            conn.close()
        if proc is None:
            return
        if kill:
            proc.terminate()
        proc.join(STOP_TIMEOUT)
        if proc.exitcode is None:  # still running: stop it for sure
            proc.kill()
            proc.join()
        proc.close()

    def close(self) -> None:
        """Stop the child and wait for it (idempotent)."""
        self._stop(kill=False)

    def __enter__(self) -> FitWorker:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # on an error or Ctrl-C the child may be busy importing or fitting: terminate rather than wait
        self._stop(kill=exc_type is not None)
