"""The one parser of Dask cluster addresses (tokstudy/clusteraddress.py): what it accepts is what Dask's own
address parser reads the same way, and what it refuses says which part is wrong."""

from __future__ import annotations

import pytest

from tests.fixtures_doctest import assert_examples_pass
from tokstudy.clusteraddress import SCHEMES, ClusterAddress, host_and_port

WELL_FORMED = [
    "tcp://head:8786",
    "tcp://10.1.0.5:8786",
    "tls://gpu017.cluster.example.org:8786",
    "ws://login_1:9000",
    "wss://[::1]:8786",
    "ucx://[fe80::1]:13337",
    "tcp://head.:1",
]


@pytest.mark.parametrize("address", WELL_FORMED)
def test_what_is_accepted_dask_reads_as_the_same_host_and_port(address):
    addressing = pytest.importorskip("distributed.comm.addressing")
    assert ClusterAddress.parse(address) == ClusterAddress(scheduler=address)
    scheme, location = addressing.parse_address(address)
    assert scheme in SCHEMES
    assert host_and_port(location, where=address, scheme=scheme) == addressing.parse_host_port(location)


def test_the_schemes_are_those_dask_connects_with():
    registry = pytest.importorskip("distributed.comm.registry")
    pytest.importorskip("distributed.comm")  # registers the transports
    assert set(SCHEMES) == set(registry.backends)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("local:0", "a local cluster is local:N with N >= 1 worker processes, got 'local:0'"),
        ("local:²", "a local cluster is local:N with N >= 1 worker processes, got 'local:²'"),
        ("local:-1", "a local cluster is local:N with N >= 1 worker processes"),
        ("head:8786", "expected local:N or a scheduler address such as tcp://HOST:8786, got 'head:8786'"),
        ("://head:8786", "expected local:N or a scheduler address"),
        (
            "http://x:1",
            "'http://x:1': Dask connects with tcp://, tls://, ucx://, ws://, wss://, inproc://, not http://",
        ),
        ("tcp://nohost.invalid", "'tcp://nohost.invalid': no port; expected tcp://HOST:PORT"),
        ("tcp://head:", "'tcp://head:': no port"),
        ("tcp://[::1]", "'tcp://[::1]': no port; expected tcp://HOST:PORT, such as tcp://[::1]:8786"),
        ("tcp://head:0", "the port '0' is not a number from 1 to 65535"),
        ("tcp://head:65536", "the port '65536' is not a number from 1 to 65535"),
        ("tcp://head:٣٣", "the port '٣٣' is not a number from 1 to 65535"),
        ("tcp://head:8786/status", "the port '8786/status' is not a number"),
        ("tcp://::1:8786", "an IPv6 address is written in brackets"),
        ("tcp://[not-v6]:8786", "'not-v6' in brackets is not an IPv6 address"),
        ("tcp://:8786", "'' is not a host name or IP address"),
        ("tcp://he llo:8786", "'he llo' is not a host name or IP address"),
        ("tcp://héad:8786", "'héad' is not a host name or IP address"),
        ("tcp://a..b:8786", "'a..b' is not a host name or IP address"),
        ("inproc://head", "expected inproc://HOST/PID/N"),
    ],
)
def test_what_is_refused_says_what_is_wrong(text, said):
    with pytest.raises(ValueError) as err:
        ClusterAddress.parse(text)
    assert said in str(err.value) and "\n" not in str(err.value)


def test_local_and_inproc():
    assert ClusterAddress.parse("local:12") == ClusterAddress(workers=12)
    assert ClusterAddress.parse("inproc://192.0.2.2/4417/1").scheduler == "inproc://192.0.2.2/4417/1"


def test_docstring_examples():
    assert_examples_pass("tokstudy.clusteraddress")
