"""What the app was started with: a results directory and the directories it may read.

Command line (after Streamlit's own ``--``)::

    streamlit run analysis_app/app.py -- --results results/demo --allow-dir /data/corpora

Environment (used by tests and when Streamlit swallows the arguments):
``TOKSTUDY_APP_RESULTS``, ``TOKSTUDY_APP_ALLOW_DIRS`` (``os.pathsep``-separated),
``TOKSTUDY_APP_MAX_UPLOAD_MB``. Command-line values win.

The readable directories are: every ``--allow-dir``, the results directory, and the
tokstudy data location (``TOKSTUDY_DATA``) when it exists, so the shared corpora can be
picked without extra flags.

>>> s = parse_settings(["--results", "/tmp", "--allow-dir", "/srv"], environ={})
>>> str(s.results), [str(d) for d in s.allow_dirs][:2]
('/tmp', ['/srv', '/tmp'])
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tokstudy.datalocation import data_root

ENV_RESULTS = "TOKSTUDY_APP_RESULTS"
ENV_ALLOW = "TOKSTUDY_APP_ALLOW_DIRS"
ENV_MAX_UPLOAD = "TOKSTUDY_APP_MAX_UPLOAD_MB"


@dataclass(frozen=True)
class AppSettings:
    """Settings of one app process.

    Attributes:
        results: the study's results directory to open on start, or ``None``.
        allow_dirs: directories whose files may be opened by path (uploads need none).
        max_upload_mb: largest accepted upload, in MiB.
    """

    results: Path | None = None
    allow_dirs: tuple[Path, ...] = field(default_factory=tuple)
    max_upload_mb: float = 200.0

    def __post_init__(self) -> None:
        if not self.max_upload_mb > 0:
            raise ValueError(f"max_upload_mb must be positive, got {self.max_upload_mb}")

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)


def parse_settings(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> AppSettings:
    """Settings from ``argv`` (default ``sys.argv[1:]``) and ``environ`` (default ``os.environ``).

    Unknown arguments are ignored: under ``pytest`` or ``streamlit`` ``sys.argv`` holds theirs.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(prog="analysis_app", add_help=False)
    parser.add_argument("--results", default=None)
    parser.add_argument("--allow-dir", action="append", default=[])
    parser.add_argument("--max-upload-mb", type=float, default=None)
    args, _ = parser.parse_known_args(argv)

    results = args.results or environ.get(ENV_RESULTS) or None
    allow = list(args.allow_dir) + [p for p in environ.get(ENV_ALLOW, "").split(os.pathsep) if p]
    if results:
        allow.append(results)

    root = data_root()
    if root.is_dir():
        allow.append(str(root))
    max_mb = args.max_upload_mb or float(environ.get(ENV_MAX_UPLOAD) or 200.0)
    # relative paths (`make app` passes results/demo, the Makefile's data path is ../shared/data)
    # mean what they mean in the directory the app was started from: made absolute here, once
    dirs = tuple(dict.fromkeys(Path(os.path.abspath(Path(p).expanduser())) for p in allow))
    res = Path(os.path.abspath(Path(results).expanduser())) if results else None
    return AppSettings(results=res, allow_dirs=dirs, max_upload_mb=max_mb)
