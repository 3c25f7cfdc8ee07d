"""The whole study on a Dask cluster of 2 single-threaded workers (``cluster.address: local:2``): the same tables
and report as one job, even when a worker is SIGKILLed during a pre-training (the report then says that run took
two attempts, and counts the killed one's time); and ``--cluster`` on the CLI.

The trainer is the in-memory fake of the backend seam (no torch) with a pre-training that checkpoints every step
and resumes from its last checkpoint, as the pre-trainer does; the data is the generated sample.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from tests.study.fake_backend import FAKE_COST, FakeBackend  # noqa: E402
from tokstudy.study.config import load_study_config  # noqa: E402
from tokstudy.study.control_and_cost import RETRIED_NOTE  # noqa: E402
from tokstudy.study.pipeline import run_study  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = Path(__file__).with_name("tiny_study.yaml")
STEPS = 8


class CheckpointingFake(FakeBackend):
    """The fake trainer whose pre-training takes ``STEPS`` steps of ``pause`` s, each checkpointed atomically;
    every attempt appends ``pid first-step start-time`` to ``attempts`` in its folder."""

    def __init__(self, pause: float = 0.0):
        super().__init__()
        self.pause = pause

    def pretrain(self, work, tokenizer_dir, raw_files, section, *, progress=True):
        checkpoint = work / "checkpoint"
        step = int(checkpoint.read_text()) if checkpoint.is_file() else 0
        with open(work / "attempts", "a") as log:
            log.write(f"{os.getpid()} {step} {time.time()}\n")
        while step < STEPS:
            time.sleep(self.pause)
            step += 1
            (work / "checkpoint.tmp").write_text(str(step))
            os.replace(work / "checkpoint.tmp", checkpoint)
        return super().pretrain(work, tokenizer_dir, raw_files, section, progress=progress)


def _config(out: Path, empty: Path, **cluster):
    config = load_study_config(TINY, output_dir=str(out), data_dir=str(empty), jobs=1)
    return dataclasses.replace(config, cluster=dataclasses.replace(config.cluster, **cluster))


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The tiny study with one job on the fake trainer: the reference, and the tokenizers the others start from."""
    tmp = tmp_path_factory.mktemp("cluster_study")
    empty = tmp / "no_corpora"
    empty.mkdir()
    result = run_study(_config(tmp / "one", empty), backend=CheckpointingFake(), log=lambda m: None, progress=False)
    return result, empty


def _seeded(serial_root: Path, out: Path) -> Path:
    """A results folder holding the reference's tokenizers (and sample) only: the training runs start afresh."""
    out.mkdir()
    for name in ("tokenizers", "sample_data"):
        shutil.copytree(serial_root / name, out / name)
    (out / ".stages").mkdir()
    shutil.copy2(serial_root / ".stages" / "tokenizers.json", out / ".stages")
    return out


def _same_report(a: Path, b: Path) -> None:
    """The same tables and report, but for what the runs cost (their time, and a killed run's attempts)."""
    for table in ("scores.json", "table4.json", "control.json", "correlation.json"):
        assert (a / "tables" / table).read_text() == (b / "tables" / table).read_text(), table
    assert _without_cost((a / "report.md").read_text()) == _without_cost((b / "report.md").read_text())


def _without_cost(report: str) -> list[str]:
    """The report's lines less the cost paragraph, its table and the note below it (up to the energy figure)."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("What each model cost:"))
    end = next(i for i, line in enumerate(lines) if line.startswith("![score against energy]"))
    return lines[:start] + lines[end:]


def test_the_study_on_a_local_cluster_with_a_killed_worker_writes_the_serial_report(serial, tmp_path):
    reference, empty = serial
    out = _seeded(reference.root, tmp_path / "dask")
    work = out / "pretrain" / "sp-unigram-1k"
    killed = []

    def kill_mid_pretraining():
        deadline = time.time() + 180
        while time.time() < deadline:
            checkpoint = work / "checkpoint"
            if checkpoint.is_file() and int(checkpoint.read_text() or 0) >= 5:
                killed.append(int((work / "attempts").read_text().split()[0]))
                os.kill(killed[0], signal.SIGKILL)
                killed.append(time.time())
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_mid_pretraining, daemon=True)
    killer.start()
    config = _config(out, empty, address="local:2", devices=(), retries=0)
    lines = []
    result = run_study(config, backend=CheckpointingFake(pause=0.3), log=lines.append, progress=False)
    killer.join()
    assert killed, "the pre-training ended before the worker could be killed"
    attempts = [line.split() for line in (work / "attempts").read_text().splitlines()]
    assert len(attempts) == 2 and attempts[1][0] != attempts[0][0] and int(attempts[1][1]) >= 5
    assert "[cached] tokenizers" in lines and sum(line.startswith("dask dashboard") for line in lines) == 1
    _same_report(reference.root, result.root)
    # the killed attempt's time is in the run's cost, as far as the last record it wrote (every 0.5 s this early;
    # a second's slack for a loaded machine)
    ran = killed[1] - float(attempts[0][2])  # from the killed pre-training's start to the kill, 1.5 s at least
    cost = json.loads((result.root / "tables" / "cost.json").read_text())["pretrain"]
    killed_run = cost["sp-unigram-1k"]
    assert killed_run["attempts"] == 2 and 0 < ran - 1.0 <= killed_run["lost_seconds"] <= ran + 1.0
    assert killed_run["wall_seconds"] == pytest.approx(FAKE_COST["wall_seconds"] + killed_run["lost_seconds"])
    assert killed_run["energy_kwh"] is None  # the killed attempt's energy was never measured
    assert all("attempts" not in c for name, c in cost.items() if name != "sp-unigram-1k")
    report = (result.root / "report.md").read_text()
    pretraining = next(line for line in report.splitlines() if line.startswith("| pre-training |"))
    minutes = killed_run["wall_seconds"] / 60
    assert pretraining.split(" | ")[2] == f"{minutes:.1f} min (2 attempts), energy not measured"
    assert RETRIED_NOTE in report and RETRIED_NOTE not in (reference.root / "report.md").read_text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_unreachable_scheduler_is_one_line_before_any_work(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.time()
    res = subprocess.run(
        [sys.executable, "-m", "tokstudy", "study", str(TINY), "-o", str(tmp_path / "out"), "--cluster", address],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 1, res.stderr[-2000:]
    assert res.stderr.strip().splitlines() == [
        f"tokstudy study: error: no Dask scheduler answered at {address} within 5 s (Connection refused); "
        "start one there (dask scheduler, dask-jobqueue) or correct cluster.address / --cluster"
    ]
    assert time.time() - start < 60 and not (tmp_path / "out" / "tokenizers").exists()


def _study_command(capsys, *args: str) -> tuple[int, str]:
    """``tokstudy study ARGS`` in this process (the address is refused before the pre-trainer is imported, so a
    process of its own would only add its start): its exit status and what it wrote on stderr."""
    from tokstudy.cli import main

    capsys.readouterr()
    code = main(["study", *args])
    return code, capsys.readouterr().err


def test_cli_refuses_a_malformed_cluster_address(tmp_path, capsys):
    code, stderr = _study_command(capsys, str(TINY), "-o", str(tmp_path), "--cluster", "local:zero")
    assert code == 2
    assert "--cluster: a local cluster is local:N with N >= 1 worker processes, got 'local:zero'" in stderr


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("local:²", "a local cluster is local:N with N >= 1 worker processes, got 'local:²'"),
        (
            "http://x:1",
            "'http://x:1': Dask connects with tcp://, tls://, ucx://, ws://, wss://, inproc://, not http://",
        ),
        ("tcp://nohost.invalid", "'tcp://nohost.invalid': no port; expected tcp://HOST:PORT, such as tcp://nohost"),
        ("tcp://head:99999", "'tcp://head:99999': the port '99999' is not a number from 1 to 65535"),
    ],
)
def test_cli_refuses_a_cluster_address_malformed_in_any_part_before_any_work(tmp_path, capsys, address, said):
    out = tmp_path / "out"
    code, stderr = _study_command(capsys, str(TINY), "-o", str(out), "--cluster", address)
    assert code == 2, stderr[-2000:]
    (line,) = stderr.strip().splitlines()
    assert line.startswith(f"tokstudy study: error: --cluster: {said}") and not out.exists()


@pytest.mark.timeout(120)
def test_cli_a_listener_that_is_no_scheduler_is_one_line_before_any_work(tmp_path):
    """A well-formed address where something listens that never answers as Dask (here a socket that accepts and
    stays silent, as a web server waiting for a request): Dask's client would wait for its handshake forever."""
    config = tmp_path / "quick.yaml"  # a second's wait for the handshake, not the default 5
    config.write_text(TINY.read_text() + "cluster:\n  connect_timeout: 1\n")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        out = tmp_path / "out"
        res = subprocess.run(
            [sys.executable, "-m", "tokstudy", "study", str(config), "-o", str(out), "--cluster", address],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=100,
        )
    assert res.returncode == 1, res.stderr[-2000:]
    assert res.stderr.strip().splitlines() == [
        f"tokstudy study: error: no Dask scheduler answered at {address} within 1 s (no answer to Dask's handshake: "
        "is it a Dask scheduler?); start one there (dask scheduler, dask-jobqueue) or correct cluster.address / "
        "--cluster"
    ]
    assert not out.exists()


def test_the_cluster_section_of_a_configuration_file(tmp_path):
    from tokstudy.errors import ConfigError

    good = tmp_path / "c.yaml"
    good.write_text("name: c\ncluster:\n  address: tcp://head:8786\n  devices: [0, 1]\n")
    cluster = load_study_config(good).cluster
    assert cluster.address == "tcp://head:8786" and cluster.devices == ("0", "1")
    assert cluster.executor().address.scheduler == "tcp://head:8786"
    assert load_study_config(TINY).cluster.executor() is None  # no section: the process pool
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: c\ncluster:\n  address: head:8786\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: cluster: expected local:N or a scheduler address"):
        load_study_config(bad)
