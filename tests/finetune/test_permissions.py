"""Written results follow the user's umask (issue 15 item 8: mkstemp/mkdtemp made them 0600/0700)."""

from __future__ import annotations

import os

from tokstudy.fileio import atomic_write_text, current_umask


def test_atomic_write_text_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        path = atomic_write_text(tmp_path / "run.json", "{}\n")
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_seed_directory_and_its_files_follow_the_umask(snips_run):
    mask = current_umask()
    seed = snips_run / "seed-1"
    assert os.stat(seed).st_mode & 0o777 == 0o777 & ~mask
    for name in ("metrics.json", "predictions.test.tsv"):
        assert os.stat(seed / name).st_mode & 0o777 == 0o666 & ~mask, name
    assert os.stat(snips_run / "run.json").st_mode & 0o777 == 0o666 & ~mask
