"""``corpus-stats --scheduler``: the address is checked in form by the parser ``tokstudy study --cluster`` uses
(tokstudy/clusteraddress.py), and a well-formed one with no usable scheduler behind it is one line, never an
internal error nor a wait without end."""

from __future__ import annotations

import re
import socket

import pytest

from tokstudy.analysis.corpus.engines import EngineSettings, corpus_stats
from tokstudy.cli import main
from tokstudy.clusteraddress import ClusterError
from tokstudy.errors import UsageError


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "en.txt"
    path.write_text("".join(f"the cat sat on mat number {i}\n" for i in range(50)), encoding="utf-8")
    return path


def _corpus_stats(spm_model, corpus, *options: str) -> list[str]:
    return ["corpus-stats", "-t", f"tiny={spm_model}", "--corpus", str(corpus), "--no-progress", *options]


@pytest.mark.parametrize(
    ("scheduler", "said"),
    [
        ("tcp://nohost.invalid", "scheduler: 'tcp://nohost.invalid': no port; expected tcp://HOST:PORT"),
        ("http://head:8786", "scheduler: 'http://head:8786': Dask connects with tcp://, tls://"),
        ("head:8786", "scheduler: expected local:N or a scheduler address such as tcp://HOST:8786, got 'head:8786'"),
        ("local:2", "scheduler: 'local:2' is no scheduler address (SCHEME://HOST:PORT); for workers on this machine"),
    ],
)
def test_a_malformed_scheduler_is_a_usage_error_in_one_line(spm_model, corpus, capsys, scheduler, said):
    with pytest.raises(UsageError, match=f"^{re.escape(said)}"):
        EngineSettings("dask", scheduler=scheduler)
    assert main(_corpus_stats(spm_model, corpus, "--engine", "dask", "--scheduler", scheduler)) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"tokstudy corpus-stats: error: {said}")


def test_a_scheduler_without_the_dask_engine_is_a_usage_error(spm_model, corpus, capsys):
    assert main(_corpus_stats(spm_model, corpus, "--scheduler", "tcp://head:8786")) == 2
    assert "needs the dask engine" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_no_scheduler_at_a_well_formed_address_is_one_line_within_seconds(spm_model, corpus, capsys):
    pytest.importorskip("dask.distributed")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        closed = f"tcp://127.0.0.1:{free.getsockname()[1]}"
    assert main(_corpus_stats(spm_model, corpus, "--engine", "dask", "--scheduler", closed)) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"tokstudy corpus-stats: error: no Dask scheduler answered at {closed} within 10 s")
    assert "Connection refused" in line and line.endswith("or correct --scheduler")
    with socket.socket() as silent:  # accepts and never answers, as a web server waiting for a request
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        quiet = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(ClusterError, match=f"no Dask scheduler answered at {quiet} within 1 s .no answer to Dask"):
            corpus_stats(
                corpus, [f"tiny={spm_model}"], engine=EngineSettings("dask", scheduler=quiet, connect_timeout=1)
            )
