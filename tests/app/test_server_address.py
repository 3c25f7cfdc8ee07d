"""The app listens on this machine only unless told otherwise (issue 24 item 9): it shows files under its
allowed folders to whoever connects."""

from __future__ import annotations

import subprocess
import sys

import tomllib

from tests.conftest import PROJECT_ROOT


def test_streamlit_config_binds_to_localhost():
    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"


def test_streamlit_started_in_the_checkout_reads_it():
    """What `streamlit run` (the documented command, run from the checkout root) takes as its address."""
    code = "from streamlit import config; config.get_config_options(); print(config.get_option('server.address'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "127.0.0.1"


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
