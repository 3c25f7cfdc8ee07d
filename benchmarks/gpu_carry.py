"""The GPU check's carried folder (``make gpu-wheels``, on the development machine): the wheels the GPU image lacks
and a slice of the shared data, checked before they travel (a package missing or doubled, more than travels).

The GPU machine reaches no network, so everything the steps of :mod:`gpu_check` need beyond the image's torch is
carried: :func:`prepare_wheels` and :func:`prepare_data` fill ``.gpu-carry/``, :func:`check_carry` says what is
wrong with it (``make gpu-wheels`` and, first of all, ``make gpu-check``).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CARRY = ROOT / ".gpu-carry"
#: What the GPU image lacks (its package list, read 2026-11-17) of what tokstudy[pretrain] and deepspeed need:
#: distribution name -> the module it provides. Versions are those of this environment, so the GPU runs
#: what the tests here ran.
CARRIED = {
    "deepspeed": "deepspeed",
    "hjson": "hjson",
    "seqeval": "seqeval",
    "pydantic": "pydantic",
    "pydantic_core": "pydantic_core",
    "annotated_types": "annotated_types",
    "typing_inspection": "typing_inspection",
}
#: Built here from their source distributions (pure Python; deepspeed with its ops left to JIT).
BUILT = ("deepspeed", "seqeval")
#: The slice of the shared data the check and the studies read (corpus -> files, None = all): all of ``raw_text`` and
#: ``raw_text_large`` (the one-lease study's vocabularies are trained on both, 20 languages; 20 MB compressed),
#: CoNLL-2003 and XQuAD's parallel text.
DATA_SLICE = {
    "raw_text": None,
    "raw_text_large": None,
    "conll2003_en": None,
    "xquad_parallel": None,
}
#: What travels to the device machine at most (the working tree and the carried folder together).
CARRY_LIMIT_BYTES = 64 * 2**20
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def _wheel_present(wheels: Path, dist: str, version: str) -> bool:
    return any(wheels.glob(f"{dist}-{version}-*.whl"))


def prepare_wheels(wheels: Path, python: str = sys.executable) -> list[Path]:
    """Every package of :data:`CARRIED` as a wheel for Python 3.12 on x86-64 Linux (skips those present)."""
    wheels.mkdir(parents=True, exist_ok=True)
    for dist in CARRIED:
        version = _version(dist.replace("_", "-"))
        if _wheel_present(wheels, dist, version):
            continue
        if dist in BUILT:  # pure Python: built here from the source distribution
            env = {**os.environ, "DS_BUILD_OPS": "0"}
            cmd = [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
            subprocess.run([*cmd, f"{dist}=={version}"], check=True, env=env)
        else:
            cmd = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", str(wheels)]
            cmd += ["--python-version", "3.12", "--implementation", "cp"]
            for plat in PLATFORMS:
                cmd += ["--platform", plat]
            subprocess.run([*cmd, f"{dist.replace('_', '-')}=={version}"], check=True)
    return sorted(wheels.glob("*.whl"))


def prepare_data(data_root: Path, target: Path) -> None:
    """Copy :data:`DATA_SLICE` of the shared data into the carried folder (the GPU machine sees no ../shared)."""
    for corpus, files in DATA_SLICE.items():
        src = data_root / corpus
        if not src.is_dir():
            raise FileNotFoundError(f"{src}: corpus {corpus!r} not found (set DATA / TOKSTUDY_DATA)")
        dst = target / corpus
        dst.mkdir(parents=True, exist_ok=True)
        for f in sorted(src.iterdir()) if files is None else [src / name for name in files]:
            if f.is_file() and not (dst / f.name).is_file():
                shutil.copy2(f, dst / f.name)


@contextmanager
def preparing(carry: Path):
    """Hold the carried folder for one preparation at a time: two ``make gpu-wheels`` started together (two
    dry runs of the test suite, say) would both download into it, each reading the other's half-written wheels.
    The second waits here, then finds everything present and skips it."""
    carry.mkdir(parents=True, exist_ok=True)
    with (carry / ".prepare.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def check_carry(carry: Path) -> list[str]:
    """Problems with the carried folder: a package missing, two versions of one, or too big to travel."""
    problems = []
    wheels = sorted((carry / "wheels").glob("*.whl"))
    for dist in CARRIED:
        found = [w.name for w in wheels if w.name.split("-")[0].lower() == dist]
        if not found:
            problems.append(f"{carry / 'wheels'}: no wheel of {dist}")
        elif len(found) > 1:
            problems.append(f"{carry / 'wheels'}: {len(found)} versions of {dist} ({', '.join(found)}): keep one")
    for corpus in DATA_SLICE:
        if not (carry / "data" / corpus).is_dir():
            problems.append(f"{carry / 'data' / corpus}: missing")
    total = tree_bytes(carry) + _worktree_bytes()
    if total > CARRY_LIMIT_BYTES:
        problems.append(f"working tree + {carry.name}: {total / 2**20:.1f} MiB, more than 64 MiB travels")
    return problems


def tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _worktree_bytes() -> int:
    """Bytes of what travels besides the carried folder: tracked files and untracked ones git does not ignore."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if out.returncode != 0:
        return 0
    return sum((ROOT / name).stat().st_size for name in out.stdout.decode().split("\0") if (ROOT / name).is_file())
