"""Atomic writes: the one way files and folders are written in place (issue 26 item 5, issue 35 item 4)."""

from __future__ import annotations

import os
import stat

import pytest

from tests.conftest import PROJECT_ROOT
from tests.fixtures_doctest import assert_examples_pass
from tokstudy import fileio


def test_docstring_examples():
    assert_examples_pass("tokstudy.fileio")


def test_durable_write_forces_the_file_then_its_folder(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")) or real(fd))
    path = fileio.atomic_write_text(tmp_path / "sub" / "latest", "step-5\n", durable=True)
    assert path.read_text(encoding="utf-8") == "step-5\n"
    assert len(synced) == 2 and synced[0].endswith(".tmp") and synced[1] == str(tmp_path / "sub")
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["latest"]  # no temporary file left


def test_plain_write_does_not_sync(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(fileio.os, "fsync", synced.append)
    fileio.atomic_write_text(tmp_path / "a.txt", "x")
    assert synced == [] and (tmp_path / "a.txt").read_text(encoding="utf-8") == "x"


def test_hand_made_atomic_writes_are_gone():
    """The report document, the cost file, the stage records and the checkpoint pointer write through
    tokstudy.fileio (no temporary name renamed by hand in those files)."""
    for rel in (
        "tokstudy/report/assemble.py",
        "pretrain/cost.py",
        "tokstudy/study/stages.py",
        "pretrain/checkpoint.py",
    ):
        text = (PROJECT_ROOT / rel).read_text(encoding="utf-8")
        assert "atomic_write_text(" in text and ".tmp" not in text.replace(".tmp-", ""), rel


# -- folders -------------------------------------------------------------------------------------------------


def _tree(folder) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_folder_appears_only_after_the_rename(tmp_path):
    target = tmp_path / "out" / "model"
    with fileio.atomic_folder(target) as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "a.txt").write_text("a")
        (tmp / "b.txt").write_text("b")
        assert not target.exists()  # nothing under the final name while the block writes
        assert tmp.parent == target.parent and tmp.name.startswith(".model.")  # beside it: same file system
    assert _tree(target) == {"b.txt": "b", "sub/a.txt": "a"}
    assert [p.name for p in target.parent.iterdir()] == ["model"]  # no temporary or old folder left


def test_an_existing_folder_is_replaced_whole(tmp_path):
    target = tmp_path / "store"
    target.mkdir()
    (target / "stale.npy").write_text("old")  # a file the new content does not have must not survive
    with fileio.atomic_folder(target) as tmp:
        (tmp / "meta.json").write_text("new")
    assert _tree(target) == {"meta.json": "new"}
    assert [p.name for p in tmp_path.iterdir()] == ["store"]


def test_a_crash_before_the_rename_leaves_the_old_folder(tmp_path):
    target = tmp_path / "ckpt"
    target.mkdir()
    (target / "weights").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with fileio.atomic_folder(target) as tmp:
            (tmp / "weights").write_text("half")
            raise KeyboardInterrupt  # killed half-way
    assert _tree(target) == {"weights": "old"}
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt"]  # the temporary folder is removed


def test_a_failed_rename_puts_the_old_folder_back(tmp_path, monkeypatch):
    target = tmp_path / "tok"
    target.mkdir()
    (target / "spiece.model").write_text("old")
    src = fileio.staging_folder(target)
    (src / "spiece.model").write_text("new")
    real = os.replace

    def refuse_the_new_one(a, b):
        if os.fspath(a) == os.fspath(src):
            raise OSError("disk gone")
        return real(a, b)

    monkeypatch.setattr(fileio.os, "replace", refuse_the_new_one)
    with pytest.raises(OSError, match="disk gone"):
        fileio.replace_folder(src, target)
    assert _tree(target) == {"spiece.model": "old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["tok", src.name])  # only the caller's staging


def test_a_durable_folder_forces_every_file_and_folder_before_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(
        fileio.os, "fsync", lambda fd: events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))) or real_fsync(fd)
    )
    monkeypatch.setattr(fileio.os, "replace", lambda a, b: events.append(("replace", str(b))) or real_replace(a, b))
    target = tmp_path / "run"
    with fileio.atomic_folder(target) as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "x").write_text("x")
        (tmp / "y").write_text("y")
    rename = events.index(("replace", str(target)))
    synced_before = {os.path.relpath(p, tmp) for kind, p in events[:rename] if kind == "fsync"}
    assert synced_before == {"sub/x", "y", "sub", "."}
    assert events[rename + 1 :] == [("fsync", str(tmp_path))]  # then the rename itself


def test_a_plain_folder_does_not_sync(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(fileio.os, "fsync", synced.append)
    with fileio.atomic_folder(tmp_path / "f", durable=False) as tmp:
        (tmp / "a").write_text("a")
    assert synced == [] and _tree(tmp_path / "f") == {"a": "a"}


def test_a_new_folder_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        with fileio.atomic_folder(tmp_path / "shared") as tmp:
            (tmp / "a").write_text("a")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o750  # not mkdtemp's 0700


def test_folders_are_replaced_in_one_place():
    """Every caller that puts a folder in place goes through tokstudy.fileio (no rmtree-then-rename by hand)."""
    callers = {
        "tokstudy/tokenization/training.py": "replace_folder(",
        "pretrain/finetune/run.py": "replace_folder(",
        "pretrain/export.py": "atomic_folder(",
        "pretrain/data/store.py": "replace_folder(",
        "pretrain/checkpoint.py": "replace_folder(",
        "tokstudy/study/stage_bodies.py": "replace_folder(",
    }
    for rel, call in callers.items():
        text = (PROJECT_ROOT / rel).read_text(encoding="utf-8")
        assert call in text, rel
        assert ".rename(" not in text and "os.replace(" not in text, f"{rel} renames a folder by hand"
