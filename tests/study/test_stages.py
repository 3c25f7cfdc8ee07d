"""Stage caching: reuse, targeted invalidation, resume after an interruption."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass
from tokstudy.study.stages import StageRunner, stage_key


def _chain(root, *, ft_lr=1e-3, calls=None):
    """A three-stage chain: tokenizer -> finetune -> analysis."""
    calls = calls if calls is not None else []
    p = StageRunner(root, log=lambda m: None)

    def work(tag):
        def fn(d):
            calls.append(tag)
            (d / "out.txt").write_text(tag)
            return {"file": str(d / "out.txt")}

        return fn

    p.run("tok", {"vocab": 1000}, work("tok"))
    p.run("finetune", {"lr": ft_lr}, work("finetune"), deps=["tok"])
    p.run("analysis", {"n_boot": 10}, work("analysis"), deps=["tok", "finetune"])
    return p, calls


def test_second_run_reuses_every_stage(tmp_path):
    _chain(tmp_path)
    p, calls = _chain(tmp_path)
    assert calls == [] and p.skipped == ["tok", "finetune", "analysis"]


def test_changing_one_setting_reruns_only_what_depends_on_it(tmp_path):
    _chain(tmp_path)
    p, calls = _chain(tmp_path, ft_lr=5e-4)
    assert p.executed == ["finetune", "analysis"] and p.skipped == ["tok"]


def test_interrupted_stage_resumes_in_its_work_dir(tmp_path):
    p = StageRunner(tmp_path, log=lambda m: None)

    def crash(d):
        (d / "checkpoint").write_text("step 5")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        p.run("pretrain", {"steps": 10}, crash)
    seen = {}

    def resume(d):
        seen["ckpt"] = (d / "checkpoint").read_text()
        return {}

    StageRunner(tmp_path, log=lambda m: None).run("pretrain", {"steps": 10}, resume)
    assert seen["ckpt"] == "step 5"


def test_stale_work_dir_of_other_settings_is_wiped(tmp_path):
    p = StageRunner(tmp_path, log=lambda m: None)
    with pytest.raises(RuntimeError):
        p.run("s", {"a": 1}, lambda d: ((d / "junk").write_text("x"), (_ for _ in ()).throw(RuntimeError()))[1])
    StageRunner(tmp_path, log=lambda m: None).run("s", {"a": 2}, lambda d: {"junk": (d / "junk").exists()})
    assert StageRunner(tmp_path, log=lambda m: None).record("s")["outputs"] == {"junk": False}


def test_key_depends_on_params_and_deps():
    assert stage_key({"a": 1}) == stage_key({"a": 1})
    assert stage_key({"a": 1}) != stage_key({"a": 2})
    assert stage_key({"a": 1}, ["k1"]) != stage_key({"a": 1}, ["k2"])


def test_unknown_dependency_is_an_error(tmp_path):
    with pytest.raises(KeyError, match="depends on"):
        StageRunner(tmp_path, log=lambda m: None).run("x", {}, lambda d: {}, deps=["nope"])


def test_docstring_examples():
    assert_examples_pass("tokstudy.study.stages")
