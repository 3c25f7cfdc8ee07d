"""Atomic writes: the one way files are written in place (issue 26 item 5)."""

from __future__ import annotations

import os

from tokstudy.data import atomicwrite


def test_durable_write_forces_the_file_then_its_folder(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(
        atomicwrite.os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")) or real(fd)
    )
    path = atomicwrite.atomic_write_text(tmp_path / "sub" / "latest", "step-5\n", durable=True)
    assert path.read_text(encoding="utf-8") == "step-5\n"
    assert len(synced) == 2 and synced[0].endswith(".tmp") and synced[1] == str(tmp_path / "sub")
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["latest"]  # no temporary file left


def test_plain_write_does_not_sync(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(atomicwrite.os, "fsync", synced.append)
    atomicwrite.atomic_write_text(tmp_path / "a.txt", "x")
    assert synced == [] and (tmp_path / "a.txt").read_text(encoding="utf-8") == "x"


def test_hand_made_atomic_writes_are_gone():
    """The report document, the cost file, the stage records and the checkpoint pointer write through
    atomicwrite (no temporary name renamed by hand in those files)."""
    from tests.conftest import PROJECT_ROOT

    for rel in (
        "tokstudy/report/document.py",
        "pretrain/cost.py",
        "tokstudy/study/stages.py",
        "pretrain/checkpoint.py",
    ):
        text = (PROJECT_ROOT / rel).read_text(encoding="utf-8")
        assert "atomic_write_text(" in text and ".tmp" not in text.replace(".tmp-", ""), rel
