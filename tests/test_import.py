"""`import tokstudy` (and its CLI) must not pull in torch, transformers or streamlit."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("torch", "transformers", "deepspeed", "streamlit", "matplotlib", "statsmodels")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())


def test_import_tokstudy_is_light():
    loaded = _modules_after("import tokstudy")
    assert not {m for m in HEAVY if m in loaded}


def test_public_api_resolves_without_torch():
    # Resolving every public name imports the whole analysis core: still no torch.
    loaded = _modules_after("import tokstudy\nfor n in tokstudy.__all__: getattr(tokstudy, n)")
    assert "torch" not in loaded and "transformers" not in loaded and "streamlit" not in loaded
    assert "statsmodels" not in loaded  # imported inside attribute_errors only


def test_cli_help_is_light():
    loaded = _modules_after("from tokstudy.cli import build_parser\nbuild_parser()")
    assert "torch" not in loaded and "streamlit" not in loaded


def test_pretrain_cli_help_does_not_import_torch():
    loaded = _modules_after("from pretrain.cli import build_parser\nbuild_parser()")
    assert "torch" not in loaded and "deepspeed" not in loaded
