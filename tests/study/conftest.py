"""What the study's tests on real data share: the tiny configuration."""

from __future__ import annotations

from pathlib import Path

import yaml

TINY = Path(__file__).with_name("tiny_study.yaml")


def tiny_config() -> dict:
    """``tiny_study.yaml`` as a dict, for a test to change before it writes its own copy."""
    return yaml.safe_load(TINY.read_text())
