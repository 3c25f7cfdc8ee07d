"""What one process needs before DeepSpeed starts communicating: the launcher's variables and DeepSpeed's CPU op.

A single process started without a launcher (``pretrain train`` as a plain command) gets ``RANK=0``,
``WORLD_SIZE=1`` and a free local port; torchrun and the ``deepspeed`` launcher set these themselves.
DeepSpeed's CPU backend would compile a C++ op training never calls: :func:`skip_shm_inference_op`.

>>> ensure_distributed_env()          # doctest: +SKIP
>>> os.environ["WORLD_SIZE"]          # doctest: +SKIP
'1'
"""

from __future__ import annotations

import importlib
import os
import socket


def ensure_distributed_env() -> None:
    """Defaults for a single process started without a launcher (gloo/NCCL need them)."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        os.environ.setdefault("LOCAL_RANK", "0")
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        return
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:
        os.environ["MASTER_PORT"] = str(free_port())


def skip_shm_inference_op() -> None:
    """Keep DeepSpeed from compiling its shared-memory all-reduce when it starts communication on the CPU.

    DeepSpeed's CPU backend builds that C++ op as it initialises (about 30 s on 2 cores, once per machine
    and environment: the first CPU run on a fresh machine waited for it) for ``inference_all_reduce``
    only, which falls back to torch.distributed without it; training never calls it (its all-reduces go
    through torch.distributed, gloo on CPU). On a GPU, DeepSpeed builds no such op anyway.
    """
    # by its module path: ``import deepspeed.comm.torch as m`` binds the torch library, which deepspeed.comm
    # holds under the same name
    ds_comm = importlib.import_module("deepspeed.comm.torch")
    if getattr(ds_comm, "build_shm_op", None) is not None:
        ds_comm.build_shm_op = _no_shm_op


def _no_shm_op() -> None:
    return None


def free_port() -> int:
    """A TCP port that nothing listens on, over IPv4 and IPv6 alike (torch's TCPStore listens on both: a
    port free on 127.0.0.1 alone was taken on IPv6 by another process, seen as EADDRINUSE on 2 busy cores)."""
    if socket.has_ipv6:
        try:
            with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # dual stack: checks both families
                s.bind(("::", 0))
                return int(s.getsockname()[1])
        except OSError:  # no IPv6 on this machine
            pass
    with socket.socket() as s:
        s.bind(("", 0))
        return int(s.getsockname()[1])
