"""``StageRunner.run_many`` on Dask: the same outputs as one job, a killed worker survived, one run per GPU.

Each test starts its own small cluster of 2 single-threaded worker processes (``local:2``) or, where the workers
need other settings, a ``LocalCluster`` that the study reaches by its address, as it would a SLURM cluster's.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from functools import partial

import pytest

pytest.importorskip("distributed")

from distributed import LocalCluster  # noqa: E402

from tokstudy.errors import UsageError  # noqa: E402
from tokstudy.study.attempts import AttemptEnd  # noqa: E402
from tokstudy.study.executors import ClusterError, DaskCluster, local_devices, local_worker_envs  # noqa: E402
from tokstudy.study.stages import Stage, StageError, StageRunner  # noqa: E402


def _where() -> dict:
    """Which worker, device and thread limit ran a stage."""
    from distributed import get_worker

    try:
        worker = get_worker().address
    except ValueError:  # not on a Dask worker
        worker = None
    return {
        "worker": worker,
        "device": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "threads": os.environ.get("OMP_NUM_THREADS"),
    }


def _pretrain(work, inputs, *, tag, steps, pause):
    """A 'pre-training' that checkpoints each step (atomically) and resumes from its last checkpoint; every
    attempt appends ``pid first-step start-time`` to ``attempts``, so that a test can kill it and see it resume."""
    checkpoint = work / "checkpoint"
    step = int(checkpoint.read_text()) if checkpoint.is_file() else 0
    with open(work / "attempts", "a") as log:
        log.write(f"{os.getpid()} {step} {time.time()}\n")
    while step < steps:
        time.sleep(pause)
        step += 1
        (work / "checkpoint.tmp").write_text(str(step))
        os.replace(work / "checkpoint.tmp", checkpoint)
    return {"model": f"{tag}-{steps}", "at": _where()}


def _finetune(work, inputs, *, dep, seed, pause=0.0):
    time.sleep(pause)
    return {"score": f"{inputs[dep]['model']}/{seed}", "at": _where(), "start": time.time() - pause, "end": time.time()}


def _fails(work, inputs):
    raise ValueError("no such dataset: conll2003:tset")


def _stages(*, steps=3, pause=0.05, ft_pause=0.0, seeds=2):
    stages = [
        Stage(f"pretrain/{t}", {"t": t}, partial(_pretrain, tag=t, steps=steps, pause=pause), deps=("tok",))
        for t in ("a", "b")
    ]
    for t in ("a", "b"):
        stages += [
            Stage(
                f"finetune/{t}/seed{s}",
                {"seed": s},
                partial(_finetune, dep=f"pretrain/{t}", seed=s, pause=ft_pause),
                deps=(f"pretrain/{t}",),
            )
            for s in range(seeds)
        ]
    return stages


def _pipeline(root, log=lambda m: None):
    p = StageRunner(root, log=log)
    p.run("tok", {"vocab": 100}, lambda d: {"path": "tok"})
    return p


def _results(out: list[dict]) -> list:
    return [o.get("score") or o["model"] for o in out]


def test_local_cluster_gives_the_outputs_of_one_job_one_device_per_worker(tmp_path):
    reference = _results(_pipeline(tmp_path / "one").run_many(_stages(), jobs=1))
    lines = []
    pipe = _pipeline(tmp_path / "dask", log=lines.append)
    out = pipe.run_many(_stages(), executor=DaskCluster("local:2", devices=["0", "1"]))
    assert _results(out) == reference == ["a-3", "b-3", "a-3/0", "a-3/1", "b-3/0", "b-3/1"]
    assert sorted(pipe.executed) == sorted(["tok", *(s.name for s in _stages())])
    assert (tmp_path / "dask" / ".stages" / "finetune__b__seed1.json").is_file()
    # each worker owns one device, and has this machine's cores shared out
    devices = {o["at"]["worker"]: o["at"]["device"] for o in out}
    assert len(set(devices.values())) == len(devices) and set(devices.values()) <= {"0", "1"}
    assert {o["at"]["threads"] for o in out} == {str(max(1, (os.cpu_count() or 1) // 2))}
    assert sum(line.startswith("dask dashboard: ") for line in lines) == 1
    # a second run reuses every stage without starting a cluster
    again = _pipeline(tmp_path / "dask")
    assert _results(again.run_many(_stages(), executor=DaskCluster("tcp://127.0.0.1:9"))) == reference
    assert again.executed == []


def _kill_when(work, step: int, deadline: float) -> tuple[int, float]:
    """SIGKILL the process that runs the 'pre-training' in ``work`` once it has checkpointed ``step``; its pid and
    when it was killed."""
    while time.time() < deadline:
        checkpoint = work / "checkpoint"
        if checkpoint.is_file() and int(checkpoint.read_text() or 0) >= step:
            pid = int((work / "attempts").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
            return pid, time.time()
        time.sleep(0.05)
    raise AssertionError(f"no checkpoint {step} in {work}")


def test_a_worker_killed_mid_pretraining_costs_nothing_but_time(tmp_path):
    stages = partial(_stages, steps=12, pause=0.25)
    # the outputs do not depend on the pause: the reference takes none (one job would sleep 6 s)
    reference = _results(_pipeline(tmp_path / "one").run_many(_stages(steps=12, pause=0.0), jobs=1))
    killed: list[tuple[int, float]] = []
    work = tmp_path / "dask" / "pretrain" / "a"
    killer = threading.Thread(target=lambda: killed.append(_kill_when(work, 6, time.time() + 120)), daemon=True)
    killer.start()
    pipe = _pipeline(tmp_path / "dask")
    out = pipe.run_many(stages(), executor=DaskCluster("local:2", devices=[], retries=0))
    killer.join()
    assert _results(out) == reference
    attempts = [line.split() for line in (work / "attempts").read_text().splitlines()]
    assert len(attempts) == 2 and int(attempts[0][0]) == killed[0][0]
    assert attempts[1][0] != attempts[0][0] and int(attempts[1][1]) >= 6  # another process, from the checkpoint
    # the stage's done-record lists both attempts: the killed one with its time up to its last record (rewritten
    # every 0.5 s this early; a second's slack for a loaded machine), on another worker than the one that finished
    lost, finished = pipe.attempts("pretrain/a")
    ran = killed[0][1] - float(attempts[0][2])
    assert (lost.end, finished.end) == (AttemptEnd.LOST, AttemptEnd.RETURNED) and lost.where != finished.where
    assert lost.where.startswith("Dask worker tcp://127.0.0.1:") and 0 < ran - 1.0 <= lost.seconds <= ran + 1.0
    assert [a.end for a in pipe.attempts("pretrain/b")] == [AttemptEnd.RETURNED]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_clear_line_within_seconds(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.time()
    with pytest.raises(ClusterError, match=f"no Dask scheduler answered at {address} within 2 s") as err:
        _pipeline(tmp_path).run_many(_stages(), executor=DaskCluster(address, connect_timeout=2))
    assert time.time() - start < 10 and "\n" not in str(err.value)
    assert not list((tmp_path / ".stages").glob("pretrain__*"))


def test_a_stage_failing_on_a_worker_names_the_worker_and_its_traceback(tmp_path):
    stages = [*_stages()[:1], Stage("finetune/a/bad", {}, _fails, deps=("pretrain/a",))]
    with pytest.raises(StageError) as err:
        _pipeline(tmp_path).run_many(stages, executor=DaskCluster("local:2", devices=[], retries=0))
    message = str(err.value)
    assert message.startswith("stage 'finetune/a/bad' failed on Dask worker tcp://127.0.0.1:")
    assert "ValueError: no such dataset: conll2003:tset" in message.splitlines()[0]
    assert 'raise ValueError("no such dataset: conll2003:tset")' in message  # the stage's own source line
    assert (tmp_path / ".stages" / "pretrain__a.json").is_file()
    assert not (tmp_path / ".stages" / "finetune__a__bad.json").exists()


def _overlaps(out: list[dict]) -> int:
    """Pairs of runs on the same worker whose [start, end] intervals overlap."""
    runs = sorted((o["at"]["worker"], o["start"], o["end"]) for o in out if "start" in o)
    return sum(a[0] == b[0] and b[1] < a[2] for i, a in enumerate(runs) for b in runs[i + 1 :])


@pytest.mark.parametrize("gpus", [1, 2])
def test_the_gpu_resource_keeps_two_runs_off_one_device(tmp_path, gpus):
    """Workers of 2 threads each, reached by address: with GPU=1 each runs one fine-tuning at a time (both busy);
    with GPU=2 (the control that shows the check can fail) two runs share a worker's device."""
    lines = []
    with LocalCluster(
        n_workers=2, threads_per_worker=2, resources={"GPU": gpus}, processes=True, dashboard_address=None
    ) as cluster:
        pipe = _pipeline(tmp_path, log=lines.append)
        executor = DaskCluster(cluster.scheduler_address, retries=0)
        out = pipe.run_many(_stages(steps=1, pause=0.01, ft_pause=0.6, seeds=4), executor=executor)
    assert len({o["at"]["worker"] for o in out[2:]}) == 2
    if gpus == 1:
        assert _overlaps(out) == 0
        assert "cluster: 2 workers, 2 GPU in all" in lines
    else:
        assert _overlaps(out) > 0
        assert any("offers GPU=2: its runs would share a device" in line for line in lines)


def test_workers_without_the_gpu_resource_are_refused_not_waited_for(tmp_path):
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with pytest.raises(ClusterError, match="none of the 1 workers of the scheduler has the resource GPU"):
            _pipeline(tmp_path).run_many(_stages(), executor=DaskCluster(cluster.scheduler_address))


def test_local_devices_and_one_worker_per_gpu():
    assert local_devices({"CUDA_VISIBLE_DEVICES": "2,3"}) == ["2", "3"]
    assert local_devices({"CUDA_VISIBLE_DEVICES": ""}) == []
    envs = local_worker_envs(2, ["2", "3"], 16)
    assert [e["CUDA_VISIBLE_DEVICES"] for e in envs] == ["2", "3"] and envs[0]["OMP_NUM_THREADS"] == "8"
    assert "CUDA_VISIBLE_DEVICES" not in local_worker_envs(2, [], 2)[0]
    with pytest.raises(UsageError, match="local:3 asks for 3 workers, but this machine has 2 GPUs"):
        local_worker_envs(3, ["0", "1"], 16)


def test_the_executors_docstring_examples_run():
    import doctest

    from tokstudy.study import executors

    assert doctest.testmod(executors).failed == 0


def _listening_hosts(port: int) -> set[str]:
    """The addresses this process listens on at ``port``, as the operating system lists them."""
    import psutil

    return {
        c.laddr.ip
        for c in psutil.Process().net_connections("tcp")
        if c.status == psutil.CONN_LISTEN and c.laddr.port == port
    }


@pytest.mark.parametrize(("every_interface", "hosts"), [(False, {"127.0.0.1"}), (True, {"0.0.0.0", "::"})])
def test_the_local_dashboard_listens_on_this_machine_unless_asked_otherwise(tmp_path, every_interface, hosts):
    """By default ``local:N``'s dashboard is on 127.0.0.1, as its scheduler and workers; ``cluster.dashboard: ":PORT"``
    puts it on every interface (the control that shows the check can fail)."""
    lines = []
    board = {"dashboard": f":{_free_port()}"} if every_interface else {}
    executor = DaskCluster("local:1", devices=[], **board)
    executor.start(tmp_path, lines.append)
    try:
        (line,) = [line for line in lines if line.startswith("dask dashboard: ")]
        port = int(line.split("dask dashboard: http://127.0.0.1:")[1].split("/")[0])
        listening = _listening_hosts(port)
    finally:
        executor.stop()
    assert listening and listening <= hosts


def test_a_malformed_dashboard_address_is_refused(tmp_path):
    from tokstudy.errors import ConfigError
    from tokstudy.study.config import load_study_config

    with pytest.raises(UsageError, match=r"cluster.dashboard: '127.0.0.1:port': the port 'port' is not a number"):
        DaskCluster("local:1", dashboard="127.0.0.1:port")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: c\ncluster:\n  address: local:2\n  dashboard: 8787\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: cluster: cluster.dashboard: expected HOST:PORT"):
        load_study_config(bad)
    good = tmp_path / "good.yaml"
    good.write_text("name: c\ncluster:\n  address: local:2\n  dashboard: ':8790'\n")
    assert load_study_config(good).cluster.executor().dashboard == ":8790"


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("ucx://127.0.0.1:9", r"no usable Dask scheduler at ucx://127.0.0.1:9 \(.*\); ucx:// needs UCX support"),
        ("inproc://127.0.0.1/1/1", r"no usable Dask scheduler at inproc://127.0.0.1/1/1 \(ValueError: .*\); inproc"),
        ("tcp://nohost.invalid:8786", r"no Dask scheduler answered at tcp://nohost.invalid:8786 within 2 s \("),
    ],
)
def test_a_well_formed_address_with_no_usable_scheduler_is_refused_by_the_check(address, message):
    """What the study checks before its first stage: each way Dask's client fails is one line."""
    with pytest.raises(ClusterError, match=message) as err:
        DaskCluster(address, connect_timeout=2).check()
    assert "\n" not in str(err.value) and str(err.value).endswith("correct cluster.address / --cluster")


def test_the_check_refuses_more_local_workers_than_gpus():
    with pytest.raises(UsageError, match="local:3 asks for 3 workers, but this machine has 2 GPUs"):
        DaskCluster("local:3", devices=["0", "1"]).check()
