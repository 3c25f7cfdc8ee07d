"""``tokstudy attribute`` with its fitting process: the same JSON, byte for byte, as fitting in process
(real CoNLL-2003 test, frequencies from its training split), and no process left behind on an error."""

from __future__ import annotations

import os

import pytest

from tests.analysis.model_errors.test_attribution_fit_worker import children
from tokstudy.analysis.model_errors.fit_worker import can_fork
from tokstudy.cli import main

needs_fork = pytest.mark.skipif(not can_fork(), reason="the fit process is forked, on Linux only")


@pytest.fixture(scope="module")
def rule_predictions(tmp_path_factory):
    from tests.conftest import corpus_path
    from tests.fixtures_predictions import write_rule_predictions
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    return write_rule_predictions(tmp_path_factory.mktemp("attr") / "preds.tsv", load_dataset("conll2003", "test"))


@needs_fork
def test_json_is_byte_identical_with_and_without_the_fit_process(en_models, rule_predictions, tmp_path, monkeypatch):
    import tokstudy.analysis.model_errors.fit_worker as fw

    started = []
    real = fw.FitWorker.__init__

    def spy(self, start=True):
        real(self, start)
        started.append((start, self.pid, self.fallback))

    monkeypatch.setattr(fw.FitWorker, "__init__", spy)
    before = children()
    base = ["attribute", "-d", "conll2003:test", "--train-dataset", "conll2003:train", "--no-progress"]
    toks = [x for v, m in en_models.items() for x in ("-t", f"sp{v}={m}")]
    for name, extra in (("child", []), ("inproc", ["--no-fit-process"])):
        argv = [*base, *toks, "-p", str(rule_predictions), "--json", str(tmp_path / f"{name}.json")]
        assert main(argv + extra) == 0
    assert started[0][0] and started[0][1] not in (None, os.getpid()) and started[0][2] == ""
    assert started[1] == (False, None, "not requested")
    child, inproc = (tmp_path / "child.json").read_bytes(), (tmp_path / "inproc.json").read_bytes()
    assert child == inproc
    assert child.count(b'"or_') >= 2 * len(en_models)  # odds ratios of each tokenizer
    assert not children() - before  # none left, zombies included


@needs_fork
def test_an_error_while_reading_stops_the_fit_process(en_models, tmp_path, capsys):
    before = children()
    bad = tmp_path / "preds.tsv"
    bad.write_text("not a predictions file\n")
    model = next(iter(en_models.values()))
    code = main(["attribute", "-d", "conll2003:test", "-t", f"sp={model}", "-p", str(bad), "--no-progress"])
    assert code != 0 and str(bad) in capsys.readouterr().err
    assert not children() - before  # none left, zombies included


@needs_fork
def test_ctrl_c_while_reading_stops_the_fit_process(en_models, rule_predictions, monkeypatch, capsys):
    import tokstudy.cli.attribute as cli

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "compute", interrupted)
    before = children()
    model = next(iter(en_models.values()))
    code = main(
        ["attribute", "-d", "conll2003:test", "-t", f"sp={model}", "-p", str(rule_predictions), "--no-progress"]
    )
    assert code != 0 and "interrupted" in capsys.readouterr().err
    assert not children() - before  # none left, zombies included
