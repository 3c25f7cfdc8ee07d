"""The app listens on this machine only, and sends no usage statistics, unless told otherwise (issue 24 item 9),
wherever it is started from (issue 33 item 2): it shows files under its allowed folders to whoever connects.

The servers are started as a user would (``streamlit run .../analysis_app/server.py``) from a temporary folder,
with no ``~/.streamlit`` and no ``STREAMLIT_*`` variable, and the sockets the process listens on are read from
``/proc`` (its socket inodes in ``/proc/PID/fd``, their addresses in ``/proc/PID/net/tcp`` and ``tcp6``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomllib

from tests.app.browser import free_port, stop_group
from tests.conftest import PROJECT_ROOT

APP_DIR = PROJECT_ROOT / "analysis_app"
CONFIG = APP_DIR / ".streamlit" / "config.toml"
START_S = 180  # a cold start on two loaded cores

needs_proc = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads sockets from /proc (Linux)")


def test_the_app_config_binds_to_localhost_and_sends_no_statistics():
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"
    assert config["browser"]["gatherUsageStats"] is False
    assert not (PROJECT_ROOT / ".streamlit" / "config.toml").exists()  # one copy: beside the scripts


def _address(hex_address: str) -> str:
    """An address of ``/proc/net/tcp{,6}``: 32-bit words in host (little-endian) order."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def listening(pid: int) -> set[tuple[str, int]]:
    """``(address, port)`` of every TCP socket process ``pid`` listens on."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    found = set()
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            next(f)
            for row in f:
                fields = row.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and inode in inodes:  # 0A: LISTEN
                    host, port = local.split(":")
                    found.add((_address(host), int(port, 16)))
    return found


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    return env | {
        "HOME": str(home),  # no ~/.streamlit/config.toml of this machine
        "TOKSTUDY_APP_PREWARM": "0",
        "TOKSTUDY_APP_UPLOAD_DIR": str(home / "uploads"),
        "OMP_NUM_THREADS": "1",
    }


@contextlib.contextmanager
def started(script: Path, cwd: Path, *flags: str):
    """``streamlit run SCRIPT FLAGS`` from ``cwd``; yields ``(process, port, output file)``, always stops it."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true"]
    cmd += ["--server.port", str(port), "--server.fileWatcherType", "none", *flags]
    out = cwd / f"streamlit-{port}.log"
    with open(out, "w") as log:
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=_env(cwd), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc, port, out
    finally:
        stop_group(proc, timeout=20)


def _wait_listening(proc: subprocess.Popen, port: int, out: Path) -> set[tuple[str, int]]:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the app exited ({proc.returncode}):\n{out.read_text()}"
        bound = {a for a in listening(proc.pid) if a[1] == port}
        if bound and "URL:" in out.read_text():  # the socket is bound and the app imported
            return bound
        time.sleep(0.5)
    pytest.fail(f"the app did not listen on port {port} in {START_S} s:\n{out.read_text()}")


@needs_proc
@pytest.mark.slow
def test_started_from_another_folder_it_listens_on_localhost_only(tmp_path):
    with started(APP_DIR / "server.py", tmp_path) as (proc, port, out):
        assert _wait_listening(proc, port, out) == {("127.0.0.1", port)}
        time.sleep(1)
        text = out.read_text()
        assert f"URL: http://127.0.0.1:{port}" in text
        assert "Network URL" not in text and "External URL" not in text
        # Streamlit prints this line exactly when browser.gatherUsageStats was set by no config, flag or variable
        assert "Collecting usage statistics" not in text


@needs_proc
@pytest.mark.slow
def test_serving_the_network_stays_an_explicit_choice(tmp_path):
    with started(APP_DIR / "server.py", tmp_path, "--server.address", "0.0.0.0") as (proc, port, out):
        assert _wait_listening(proc, port, out) == {("0.0.0.0", port)}


def test_the_config_is_read_from_the_scripts_folder_not_the_current_one(tmp_path):
    """What ``streamlit run`` loads before it binds (``streamlit.web.cli._main_run``: the script's path first,
    then the config files), from a folder with no ``.streamlit/``."""
    code = (
        "import sys; from streamlit import config; config._main_script_path = sys.argv[1]; "
        "config.get_config_options(); "
        "print(config.get_option('server.address'), config.get_option('browser.gatherUsageStats'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(APP_DIR / "server.py")],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["127.0.0.1", "False"]


@pytest.mark.slow
def test_a_streamlit_that_does_not_read_the_config_is_refused(tmp_path):
    """A copy of the app without its ``.streamlit/`` (as with a Streamlit that reads no script-level config
    file) stops before it serves anything, with one line saying why and what to pass."""
    copy = tmp_path / "copy" / "analysis_app"
    shutil.copytree(APP_DIR, copy, ignore=shutil.ignore_patterns(".streamlit", "__pycache__"))
    with started(copy / "server.py", tmp_path) as (proc, _, out):
        assert proc.wait(timeout=START_S) == 2
    text = out.read_text()
    assert "analysis_app: not starting: server.address left at Streamlit's default, which listens on every " in text
    assert "browser.gatherUsageStats left at Streamlit's default, which sends usage statistics" in text
    assert "--server.address 127.0.0.1 --browser.gatherUsageStats false" in text
    assert "Traceback" not in text


def test_make_app_binds_to_localhost_unless_told():
    def command(*extra):
        out = subprocess.run(
            ["make", "-n", "app", *extra], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
        ).stdout
        return next(line for line in out.splitlines() if "--server.address" in line)

    assert "--server.address 127.0.0.1" in command()
    assert "--server.address 0.0.0.0" in command("APP_ADDRESS=0.0.0.0")


def test_docs_say_what_serving_on_a_network_exposes():
    text = (PROJECT_ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    assert "127.0.0.1" in text and "APP_ADDRESS=0.0.0.0" in text and "Serving it on a network" in text
    assert "analysis_app/.streamlit/config.toml" in text and "from any folder" in text
