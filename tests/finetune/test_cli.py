"""The thin CLI: help texts, finetune -> evaluate -> compare on real data, shipped configs load."""

from __future__ import annotations

import json

import pytest

from pretrain.cli import main
from pretrain.finetune.config import FinetuneConfig
from tests.conftest import PROJECT_ROOT, corpus_path


@pytest.mark.parametrize("command", ["finetune", "evaluate", "compare"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "example: pretrain " + command in capsys.readouterr().out.replace("\n", " ")


def test_every_shipped_config_loads():
    files = sorted((PROJECT_ROOT / "pretrain" / "configs").glob("finetune_*.yaml"))
    assert len(files) >= 5
    for f in files:
        cfg = FinetuneConfig.from_yaml(f, model="models/m")
        assert cfg.model == "models/m" and cfg.dataset


def test_finetune_evaluate_compare(tiny_model, snips_run, tmp_path, capsys):
    from tokstudy.analysis.model_errors.predictions import read_predictions

    corpus_path("snips")
    out = tmp_path / "run"
    rc = main(
        [
            "finetune",
            "--config",
            str(PROJECT_ROOT / "pretrain/configs/finetune_tiny.yaml"),
            "--model",
            str(tiny_model),
            "--model-name",
            "tiny-cli",
            "--seeds",
            "2",
            "--epochs",
            "1",
            "--max-train-sentences",
            "300",
            "--max-eval-sentences",
            "100",
            "--no-progress",
            "--output",
            str(out),
        ]
    )
    assert rc == 0 and "tiny-cli on snips (2 seeds): f1" in capsys.readouterr().out
    run = json.loads((out / "run.json").read_text())
    assert run["seeds"] == [1, 2] and run["summary"]["f1"]["n"] == 2

    preds = tmp_path / "eval.tsv"
    # 300 training sentences do not show every test tag: the default refuses, naming them
    rc = main(["evaluate", "--model", str(out / "seed-1" / "model"), "--dataset", "snips", "--predictions", str(preds)])
    assert rc == 1 and "never seen in train: I-genre" in capsys.readouterr().err and not preds.exists()
    rc = main(
        [
            "evaluate",
            "--model",
            str(out / "seed-1" / "model"),
            "--dataset",
            "snips",
            "--split",
            "test",
            "--predictions",
            str(preds),
            "--metrics",
            str(tmp_path / "m.json"),
            "--unseen-labels",
            "keep",
        ]
    )
    assert rc == 0
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["n_sentences"] == 700 and 0 <= metrics["f1"] <= 1 and "f1_strict" in metrics
    p = read_predictions(preds)
    assert len(p) == 700 and p.metadata["seed"] == "1"
    # the seed's own test predictions (first 100 sentences) agree with a fresh evaluation of its saved model
    own = read_predictions(out / "seed-1" / "predictions.test.tsv")
    assert [s.pred for s in own] == [s.pred for s in p.sentences[:100]]

    capsys.readouterr()
    rc = main(["compare", str(snips_run), str(out), "--out", str(tmp_path / "tables")])
    assert rc == 0
    text = capsys.readouterr().out
    assert "| dataset | tiny | tiny-cli |" in text
    assert (tmp_path / "tables" / "results.csv").is_file()


def test_cli_errors_are_one_line(tmp_path, capsys):
    rc = main(
        ["finetune", "--model", str(tmp_path), "--task", "ner", "--dataset", "snips", "--output", str(tmp_path / "o")]
    )
    err = capsys.readouterr().err
    assert rc == 1 and "not a Hugging Face model directory (no config.json)" in err
    rc = main(["finetune", "--task", "ner", "--output", str(tmp_path / "o")])
    assert rc == 1 and "missing --model --dataset" in capsys.readouterr().err
    rc = main(["compare", str(tmp_path), "--out", str(tmp_path / "t")])
    assert rc == 1 and "no run.json" in capsys.readouterr().err


def test_decoding_and_regularisation_flags_reach_the_config(tmp_path, capsys):
    import argparse

    from pretrain.cli.finetune import config_from_args, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    argv = ["finetune", "--model", "m", "--task", "ner", "--dataset", "conll2003", "--output", str(tmp_path)]
    flags = ["--decode", "viterbi", "--decode-prior-scale", "0.5", "--dropout", "0.1", "--token-dropout", "0.15"]
    cfg = config_from_args(parser.parse_args(argv + flags))
    assert (cfg.decode, cfg.decode_prior_scale, cfg.dropout, cfg.token_dropout) == ("viterbi", 0.5, 0.1, 0.15)
    plain = config_from_args(parser.parse_args(argv))
    assert (plain.decode, plain.decode_prior_scale, plain.dropout, plain.token_dropout) == ("argmax", 0.0, None, 0.0)
    rc = main(argv + ["--decode-prior-scale", "0.5"])
    assert rc == 1 and "only applies with decode='viterbi'" in capsys.readouterr().err
