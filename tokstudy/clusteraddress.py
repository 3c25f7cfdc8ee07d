"""A Dask cluster's address, checked in form before any work, and the client that reaches it.

One parser for every command that takes an address (``tokstudy study --cluster`` and the study's
``cluster.address``, ``tokstudy corpus-stats --scheduler``), so that a malformed one is refused in one line
before the first minute of work, not by Dask's client after the tokenizers are trained:

* ``local:N``: N worker processes started on this machine (N written in ASCII digits, at least 1);
* ``SCHEME://HOST:PORT``: a running scheduler, SCHEME one of :data:`SCHEMES` (those ``distributed`` connects
  with), HOST a host name, an IPv4 address or a bracketed IPv6 one (``[::1]``), PORT 1 to 65535; Dask
  needs the port (a scheduler listens on 8786 unless told otherwise);
* ``inproc://HOST/PID/N``: a scheduler in this very process (``LocalCluster(processes=False)``), for the API.

A well-formed address may still have no scheduler behind it: :func:`connect` says so in one line
(:class:`ClusterError`), whatever Dask's client raised.

>>> ClusterAddress.parse("local:4").workers, ClusterAddress.parse("tcp://head:8786").scheduler
(4, 'tcp://head:8786')
>>> ClusterAddress.parse("tcp://head")
Traceback (most recent call last):
ValueError: 'tcp://head': no port; expected tcp://HOST:PORT, such as tcp://head:8786 (8786: the scheduler's default)
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tokstudy.errors import TokstudyError

#: the schemes ``distributed`` connects with (``distributed.comm.registry.backends``): TCP, TLS, UCX and
#: websockets, and ``inproc`` for a scheduler in the same process
SCHEMES = ("tcp", "tls", "ucx", "ws", "wss", "inproc")
#: schemes that listen on a TCP port, so that a closed port can be found at once by :func:`probe`
_TCP_SCHEMES = ("tcp", "tls", "ws", "wss")
#: what a scheme needs besides a listening scheduler, said when connecting fails
_NEEDS = {
    "tls": "; tls:// needs dask's TLS settings (distributed.comm.tls.* in the dask configuration)",
    "wss": "; wss:// needs dask's TLS settings (distributed.comm.tls.* in the dask configuration)",
    "ucx": "; ucx:// needs UCX support installed for dask (the distributed-ucxx package)",
    "inproc": "; inproc:// reaches a scheduler started in this same process only",
}
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?", re.ASCII)
_EXPECTED = "expected local:N or a scheduler address such as tcp://HOST:8786"


class ClusterError(TokstudyError, OSError):
    """The Dask cluster cannot take the work: no scheduler answers, or its workers cannot run it."""


@dataclass(frozen=True)
class ClusterAddress:
    """``local:N`` (start N workers here) or a scheduler's address (``tcp://HOST:PORT``, ``tls://...``)."""

    workers: int | None = None
    """``local:N``: the number of worker processes to start on this machine; else None."""
    scheduler: str | None = None
    """A running scheduler's address, as written; else None."""

    @classmethod
    def parse(cls, text: str) -> ClusterAddress:
        """The address ``text`` names; ``ValueError`` naming what is wrong and what was expected."""
        if text.startswith("local:"):
            count = text.removeprefix("local:")
            if not (count.isascii() and count.isdigit()) or int(count) < 1:
                raise ValueError(f"a local cluster is local:N with N >= 1 worker processes, got {text!r}")
            return cls(workers=int(count))
        scheme, sep, rest = text.partition("://")
        if not sep or not scheme:
            raise ValueError(f"{_EXPECTED}, got {text!r}")
        if scheme not in SCHEMES:
            known = ", ".join(f"{s}://" for s in SCHEMES)
            raise ValueError(f"{text!r}: Dask connects with {known}, not {scheme}://; {_EXPECTED}")
        if scheme == "inproc":
            _check_inproc(text, rest)
        else:
            host_and_port(rest, where=text, scheme=scheme)
        return cls(scheduler=text)


def host_and_port(text: str, *, where: str, scheme: str = "tcp") -> tuple[str, int]:
    """``HOST:PORT`` (``[IPv6]:PORT``) as a host and a port number; ``ValueError`` naming ``where`` otherwise.

    >>> host_and_port("[::1]:8786", where="x")
    ('::1', 8786)
    """
    if text.startswith("["):
        host, sep, tail = text[1:].partition("]")
        port = tail.removeprefix(":") if sep and tail.startswith(":") else None
        if not sep or (tail and port is None):
            raise ValueError(f"{where!r}: expected [IPv6 address]:PORT after {scheme}://")
        _check_ipv6(host, where)
    else:
        host, sep, port = text.rpartition(":")
        if not sep:
            host, port = port, None
        if ":" in host:
            raise ValueError(f"{where!r}: an IPv6 address is written in brackets, as in {scheme}://[::1]:8786")
        if not _HOST_NAME.fullmatch(host) or len(host) > 253:
            raise ValueError(f"{where!r}: {host!r} is not a host name or IP address (ASCII letters, digits, - . _)")
    if port is None or port == "":
        example = f"{scheme}://{host if ':' not in host else f'[{host}]'}:8786"
        raise ValueError(
            f"{where!r}: no port; expected {scheme}://HOST:PORT, such as {example} (8786: the scheduler's default)"
        )
    if not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise ValueError(f"{where!r}: the port {port!r} is not a number from 1 to 65535")
    return host, int(port)


def _check_ipv6(host: str, where: str) -> None:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        raise ValueError(f"{where!r}: {host!r} in brackets is not an IPv6 address") from None


def _check_inproc(text: str, rest: str) -> None:
    """``inproc://HOST/PID/N``, as ``LocalCluster(processes=False)`` names its scheduler."""
    parts = rest.split("/")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts[1:]) or not parts[0]:
        raise ValueError(f"{text!r}: expected inproc://HOST/PID/N, the address of a scheduler in this process")


def unreachable(address: str, timeout: float, reason: object, setting: str) -> ClusterError:
    """The one line said when no scheduler answers at ``address`` (given as ``setting``)."""
    return ClusterError(
        f"no Dask scheduler answered at {address} within {timeout:g} s ({reason}); start one there "
        f"(dask scheduler, dask-jobqueue) or correct {setting}"
    )


def probe(address: str, timeout: float, setting: str) -> None:
    """Fail at once, in one line, when nothing listens at a TCP-based scheduler address (``tcp``, ``tls``,
    ``ws``, ``wss``), before Dask's client retries in the background; other schemes are left to :func:`connect`.
    ``setting`` names where the address was given (``--scheduler``), for the user to correct."""
    scheme, _, rest = address.partition("://")
    if scheme not in _TCP_SCHEMES:
        return
    try:
        host, port = host_and_port(rest, where=address, scheme=scheme)
    except ValueError:
        return  # not parsed here: the caller checked the form (ClusterAddress.parse)
    try:
        socket.create_connection((host or "127.0.0.1", port), timeout=timeout).close()
    except OSError as exc:
        raise unreachable(address, timeout, exc.strerror or exc, setting) from None


def connect(address: str, timeout: float, setting: str):
    """A client of the scheduler at ``address`` (given as ``setting``), or one line saying why there is none.

    Dask's client fails in many ways on an address it cannot use (``TypeError`` for TLS without its
    settings, ``ValueError`` for an ``inproc`` address of another process, a ``MemoryError`` from a listener
    that is no scheduler): each is the same fact for the caller, no usable scheduler there, said in one line.
    """
    from distributed import Client  # deferred: heavy and optional (tokstudy[dask]), only on a Dask cluster

    probe(address, timeout, setting)  # a closed port fails here, before Dask's client retries in the background
    try:
        handshake(address, timeout)
        return Client(address, timeout=timeout)
    except OSError as exc:
        raise unreachable(address, timeout, exc, setting) from None
    except Exception as exc:  # see the docstring: whatever the client raised, the address is no usable scheduler
        scheme = address.partition("://")[0]
        raise ClusterError(
            f"no usable Dask scheduler at {address} ({type(exc).__name__}: {exc}){_NEEDS.get(scheme, '')}; "
            f"correct {setting}"
        ) from None


def handshake(address: str, timeout: float) -> None:
    """Open a Dask connection to ``address`` and close it, within ``timeout`` s in all: ``OSError`` when what
    listens there does not answer as a Dask server. Dask's client connects with a timeout but then waits for
    the server's handshake without one, forever on a listener that is no Dask server (a web server)."""
    from distributed.comm import connect as open_comm  # deferred: heavy and optional (tokstudy[dask])

    async def shake() -> None:
        try:
            comm = await asyncio.wait_for(open_comm(address, timeout=timeout), timeout)
        except asyncio.TimeoutError:
            raise OSError("no answer to Dask's handshake: is it a Dask scheduler?") from None
        await comm.close()

    # a thread of its own: asyncio.run cannot run inside a caller's event loop (a notebook's)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, shake()).result()
