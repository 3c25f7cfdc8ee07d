"""Versions and device as the GPU check's steps see them (Python, torch, CUDA, transformers, deepspeed, the device's
name and compute capability), for the summary.

One piece of code reads them (:data:`VERSIONS_CODE`), run by the steps' interpreter in the steps' environment.
Where that costs nothing more, the ``install`` step's import check runs it: that process has torch and deepspeed
imported already, and writes what it read to a file (:func:`install_snippet`). On a CUDA machine it does not: the
device's name needs CUDA started, a cost kept out of ``install``'s budget, so there :func:`environment` asks a
process of its own after the steps, as it does whenever ``install`` wrote nothing (a failed install, say).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Defines ``versions()``: the versions and the device as a dict, read by importing what the steps import.
VERSIONS_CODE = """\
def versions():
    import platform, torch, transformers
    d = {'python': platform.python_version(), 'torch': torch.__version__,
         'transformers': transformers.__version__, 'cuda': torch.version.cuda}
    try:
        import deepspeed; d['deepspeed'] = deepspeed.__version__
    except Exception as e:
        d['deepspeed'] = f'not importable: {e}'
    d['device'] = torch.cuda.get_device_name() if torch.cuda.is_available() else 'cpu'
    d['capability'] = '.'.join(map(str, torch.cuda.get_device_capability())) if torch.cuda.is_available() else None
    return d
"""


def install_snippet(path_arg: str) -> str:
    """Python for the end of ``install``'s import check: without CUDA, ``versions()`` written as JSON to the path
    ``path_arg`` (an expression of that script) evaluates to. A failure here is printed, never the install's:
    :func:`environment` then asks a process of its own.

    >>> "torch.cuda.is_available()" in install_snippet("sys.argv[4]")
    True
    """
    return VERSIONS_CODE + (
        "import torch\n"
        # on a CUDA machine the device's name would start CUDA inside install's budget: read after the steps instead
        "if not torch.cuda.is_available():\n"
        "    try:\n"
        "        read = json.dumps(versions())\n"
        "    except Exception as e:\n"
        "        print(f'versions not read here ({e}): the summary asks a process of its own')\n"
        "    else:\n"
        f"        with open({path_arg}, 'w') as f:\n"
        "            f.write(read)\n"
    )


def environment(python: str, env: dict[str, str], read_by_install: Path) -> dict:
    """Versions and device as the steps saw them (what ``install`` wrote to ``read_by_install``, else asked of
    ``python`` with ``env``), with the host and its CPUs."""
    found = _read(read_by_install.read_text()) if read_by_install.is_file() else None
    if found is None:
        code = VERSIONS_CODE + "import json\nprint(json.dumps(versions()))\n"
        proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        found = _read(proc.stdout) or {"error": proc.stderr.strip()[-300:]}
    return {**found, "host": platform.node(), "cpus": os.cpu_count()}


def _read(text: str) -> dict | None:
    """The JSON object on the last line of ``text``; None when there is none.

    >>> _read('a warning\\n{"torch": "2.11.0"}\\n'), _read(""), _read("Traceback ...")
    ({'torch': '2.11.0'}, None, None)
    """
    try:
        found = json.loads(text.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return None
    return found if isinstance(found, dict) else None
