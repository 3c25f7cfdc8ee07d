"""``StageRunner.run_many``: training stages side by side in processes, waiting only for their own model."""

from __future__ import annotations

import json
import os
import time
from functools import partial

import pytest

from tokstudy.study.stages import Stage, StageError, StageRunner


def _model(work, inputs, *, tag, delay=0.0):
    """A 'pre-training': writes a file and says which process and thread limit made it."""
    time.sleep(delay)
    (work / "model.txt").write_text(tag)
    return {"model": tag, "pid": os.getpid(), "threads": os.environ.get("OMP_NUM_THREADS")}


def _finetune(work, inputs, *, dep, seed):
    """A 'fine-tuning' of the model its dependency made: it must see that stage's outputs."""
    return {"score": f"{inputs[dep]['model']}-{seed}", "pid": os.getpid(), "t": time.time()}


def _fails(work, inputs):
    raise ValueError("no such dataset: conll2003:tset")


def _stages(delay=0.0):
    stages = []
    for tag in ("a", "b"):
        stages.append(Stage(f"pretrain/{tag}", {"tag": tag}, partial(_model, tag=tag, delay=delay), deps=("tok",)))
    for tag in ("a", "b"):
        for seed in range(2):
            stages.append(
                Stage(
                    f"finetune/{tag}/seed{seed}",
                    {"seed": seed},
                    partial(_finetune, dep=f"pretrain/{tag}", seed=seed),
                    deps=(f"pretrain/{tag}",),
                )
            )
    return stages


def _pipeline(root):
    p = StageRunner(root, log=lambda m: None)
    p.run("tok", {"vocab": 100}, lambda d: {"path": "tok"})
    return p


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_stage_runs_once_in_order_and_sees_its_dependency(tmp_path, jobs):
    p = _pipeline(tmp_path)
    out = p.run_many(_stages(), jobs=jobs)
    assert [o.get("score") or o["model"] for o in out] == ["a", "b", "a-0", "a-1", "b-0", "b-1"]
    assert sorted(p.executed) == sorted(["tok"] + [s.name for s in _stages()])
    record = json.loads((tmp_path / ".stages" / "finetune__b__seed1.json").read_text())
    assert record["outputs"]["score"] == "b-1" and record["deps"] == ["pretrain/b"]
    assert (tmp_path / "pretrain" / "a" / "model.txt").read_text() == "a"


def test_two_jobs_run_in_other_processes_with_their_share_of_the_cores(tmp_path):
    out = _pipeline(tmp_path).run_many(_stages(), jobs=2)
    pids = {o["pid"] for o in out}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert {o["threads"] for o in out[:2]} == {str(max(1, (os.cpu_count() or 1) // 2))}


def test_a_finetuning_run_starts_only_after_its_own_model(tmp_path):
    out = _pipeline(tmp_path).run_many(_stages(delay=0.3), jobs=2)
    done = {s.name: o for s, o in zip(_stages(), out)}
    record = {n: json.loads((tmp_path / ".stages" / f"{n.replace('/', '__')}.json").read_text()) for n in done}
    assert record["pretrain/a"]["finished"] <= record["finetune/a/seed0"]["finished"]


def test_a_second_run_reuses_every_stage_whatever_the_jobs(tmp_path):
    _pipeline(tmp_path).run_many(_stages(), jobs=2)
    p = _pipeline(tmp_path)
    out = p.run_many(_stages(), jobs=1)
    assert p.executed == [] and len(p.skipped) == 7 and out[2]["score"] == "a-0"


def test_a_failing_stage_is_named_and_nothing_records_it_done(tmp_path):
    p = _pipeline(tmp_path)
    stages = [*_stages()[:2], Stage("finetune/a/bad", {}, _fails, deps=("pretrain/a",))]
    with pytest.raises(StageError, match=r"finetune/a/bad.*ValueError: no such dataset: conll2003:tset"):
        p.run_many(stages, jobs=2)
    assert not (tmp_path / ".stages" / "finetune__a__bad.json").exists()
    assert (tmp_path / ".stages" / "pretrain__a.json").exists()  # what finished before stays done


def test_the_same_name_twice_is_refused(tmp_path):
    stage = _stages()[0]
    with pytest.raises(ValueError, match="appears twice"):
        _pipeline(tmp_path).run_many([stage, stage], jobs=2)


def test_a_dependency_run_before_the_batch_hands_over_its_outputs(tmp_path):
    p = _pipeline(tmp_path)
    p.run("pretrain/a", {"tag": "a"}, lambda work: {"model": "a"}, deps=["tok"])
    stage = Stage("finetune/a/seed0", {"seed": 0}, partial(_finetune, dep="pretrain/a", seed=0), deps=("pretrain/a",))
    assert p.run_many([stage], jobs=2)[0]["score"] == "a-0"


def _sleeper(work, inputs):
    """A long 'training run' that says it started (its pid) and then waits."""
    (work / "pid").write_text(str(os.getpid()))
    time.sleep(120)
    return {"done": True}


def test_ctrl_c_stops_every_run_and_records_none_done(tmp_path):
    """SIGINT to the process group, as a terminal sends it, while two runs are under way: the command ends
    at once with KeyboardInterrupt, no run process is left, and neither run is recorded as done."""
    import signal
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    script = tmp_path / "study.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import signal
            # as in a terminal (a process started in the background may inherit SIGINT ignored)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            from tokstudy.study.stages import StageRunner, Stage
            from tests.study.test_stages_parallel import _sleeper

            if __name__ == "__main__":
                p = StageRunner({str(tmp_path / "study")!r}, log=lambda m: None)
                p.run_many([Stage("pretrain/a", {{}}, _sleeper), Stage("pretrain/b", {{}}, _sleeper)], jobs=2)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, str(script)], stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    pid_files = [tmp_path / "study" / "pretrain" / tag / "pid" for tag in ("a", "b")]
    try:
        deadline = time.time() + 90
        while not all(f.is_file() and f.read_text() for f in pid_files):
            assert proc.poll() is None and time.time() < deadline, "the two runs did not start"
            time.sleep(0.1)
        children = [int(f.read_text()) for f in pid_files]
        os.killpg(proc.pid, signal.SIGINT)
        started = time.time()
        _, err = proc.communicate(timeout=60)
        stopped_after = time.time() - started
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err, err[-2000:]
    assert stopped_after < 30  # not after the runs' 120 s
    for child in children:
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)
    assert not list((tmp_path / "study" / ".stages").glob("pretrain__*.json"))
