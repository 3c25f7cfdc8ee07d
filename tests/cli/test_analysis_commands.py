"""The analysis subcommands: --help for newcomers, and end-to-end runs on CoNLL-2003 against
independent references (a per-word SentencePiece recount, scipy.stats)."""

from __future__ import annotations

import gzip
import json
import random

import pytest
from scipy import stats

from tests.conftest import corpus_path
from tokstudy.analysis.model_errors.predictions import write_predictions
from tokstudy.cli import main

KEY_OPTIONS = {
    "segment": ["--tokenizer", "--dataset", "--out", "--data-dir", "--drop-lone-boundary"],
    "stats": ["--tokenizer", "--dataset", "--resamples", "--json", "--csv", "--by", "Table 4"],
    "correlate": ["--predictions", "--tokenizer", "--dataset", "Pearson", "--measure"],
    "examples": ["--sentence", "--predictions", "--auto", "Table 3"],
    "report": ["--out", "--predictions", "--parity", "index.md"],
    "parity": ["--tokenizer", "--parallel-dir", "--languages", "--reference"],
}


@pytest.mark.parametrize("command", sorted(KEY_OPTIONS))
def test_help_mentions_key_options(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for opt in KEY_OPTIONS[command]:
        assert opt in text, f"{command} --help lacks {opt}"
    assert "Example:" in text


def read_conll_test():
    """(words, ne flags) per sentence of eng.testb, read with a plain loop (IOB1: any non-O tag is NE)."""
    sents, words, ne = [], [], []
    with gzip.open(corpus_path("conll2003") / "eng.testb.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if not parts or parts[0] == "-DOCSTART-":
                if words:
                    sents.append((words, ne))
                    words, ne = [], []
                continue
            words.append(parts[0])
            ne.append(parts[-1] != "O")
    if words:
        sents.append((words, ne))
    return sents


def test_stats_equals_direct_sentencepiece_recount(en_models, tmp_path, capsys):
    import sentencepiece as spm

    out = tmp_path / "stats.json"
    rc = main(
        [
            "stats",
            "-d",
            "conll2003:test",
            "-t",
            f"sp8k={en_models[8000]}",
            "-t",
            f"sp2k={en_models[2000]}",
            "--resamples",
            "0",
            "--no-progress",
            "--json",
            str(out),
            "--csv",
            str(tmp_path / "t4.csv"),
        ]
    )
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| sp8k |" in printed and "Boundary policy" in printed
    res = {r["tokenizer"]: r for r in json.loads(out.read_text())["table4"]}
    sents = read_conll_test()
    for name, vocab in (("sp8k", 8000), ("sp2k", 2000)):
        sp = spm.SentencePieceProcessor(model_file=str(en_models[vocab]))
        totals = {True: [0, 0], False: [0, 0]}
        for words, ne in sents:
            for w, flag in zip(words, ne):
                totals[flag][0] += len(sp.encode(w, out_type=str))  # one word at a time
                totals[flag][1] += 1
        ne_pct = 100 * (totals[True][0] / totals[True][1] - 1)
        non_pct = 100 * (totals[False][0] / totals[False][1] - 1)
        assert res[name]["ne"]["value"] == pytest.approx(ne_pct, abs=0.01)
        assert res[name]["non_ne"]["value"] == pytest.approx(non_pct, abs=0.01)
        assert res[name]["ne"]["n_words"] == totals[True][1] == 8112
    assert res["sp2k"]["ne"]["value"] > res["sp8k"]["ne"]["value"] > res["sp8k"]["non_ne"]["value"]


@pytest.fixture(scope="module")
def predictions_file(tmp_path_factory):
    """Predictions for CoNLL-2003 test that err more on long words; written with the tokstudy writer."""
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    ds = load_dataset("conll2003", "test")
    rng = random.Random(0)
    sents = []
    for s in ds:
        pred = [
            t if rng.random() > min(0.8, len(w) / 25) else ("O" if t != "O" else "B-MISC")
            for w, t in zip(s.words, s.tags)
        ]
        sents.append((s.words, s.tags, pred))
    path = tmp_path_factory.mktemp("preds") / "preds.tsv"
    write_predictions(
        path,
        sents,
        metadata={"model": "fake", "dataset": "conll2003", "split": "test"},
        sent_ids=[s.sent_id for s in ds],
    )
    return path, sents


def correlate_sp8k(en_models, predictions, out, *, resamples: int) -> int:
    """``tokstudy correlate`` of the 8k model on conll2003:test, figures written as JSON to ``out``."""
    model = f"sp8k={en_models[8000]}"
    argv = ["-d", "conll2003:test", "-t", model, "-p", str(predictions), "--resamples", str(resamples)]
    return main(["correlate", *argv, "--no-progress", "--json", str(out)])


def test_correlate_gives_scipy_r_and_p(en_models, predictions_file, tmp_path, capsys):
    import sentencepiece as spm

    path, sents = predictions_file
    out = tmp_path / "corr.json"
    rc = correlate_sp8k(en_models, path, out, resamples=100)
    assert rc == 0
    text = capsys.readouterr().out
    assert "Pearson r" in text and "5+" in text
    (res,) = json.loads(out.read_text())
    sp = spm.SentencePieceProcessor(model_file=str(en_models[8000]))
    x, y = [], []
    for words, gold, pred in sents:
        for w, g, p in zip(words, gold, pred):
            x.append(len(sp.encode(w, out_type=str)))
            y.append(int(p != g))
    r, p = stats.pearsonr(x, y)
    assert res["all"]["r"] == pytest.approx(r, abs=1e-9)
    assert res["all"]["p_value"] == pytest.approx(p, rel=1e-6, abs=1e-300)
    assert res["all"]["low"] < r < res["all"]["high"]
    assert res["n_words"] == 46435


def test_correlate_with_mismatched_predictions_fails_clearly(en_models, predictions_file, tmp_path, capsys):
    path, sents = predictions_file
    bad = list(sents)
    w = list(bad[10][0])
    w[0] = "XXX"
    bad[10] = (tuple(w), bad[10][1], bad[10][2])
    bad_path = write_predictions(tmp_path / "bad.tsv", bad)
    rc = main(["correlate", "-d", "conll2003:test", "-t", str(en_models[2000]), "-p", str(bad_path), "--no-progress"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "sentence 10, word 0: predictions have 'XXX' where the dataset has" in err


def test_correlate_reads_a_declared_subset_and_says_so(en_models, predictions_file, tmp_path, capsys):
    """A file of the split's first 100 sentences (``# subset=first:100``, the study's max_eval) is usable,
    every figure is over those sentences, and the output names the part covered."""
    path, sents = predictions_file
    sub = write_predictions(tmp_path / "sub.tsv", sents[:100], metadata={"model": "fake", "subset": "first:100"})
    out = tmp_path / "sub.json"
    rc = correlate_sp8k(en_models, sub, out, resamples=0)
    assert rc == 0
    assert "covers the first 100 of 3453 sentences of conll2003:test" in capsys.readouterr().out
    (res,) = json.loads(out.read_text())
    assert res["n_words"] == sum(len(w) for w, _, _ in sents[:100])
    assert res["n_errors"] == sum(p != g for _, gold, pred in sents[:100] for g, p in zip(gold, pred))


def test_report_several_tokenizers_in_one_call(en_models, predictions_file, tmp_path, capsys):
    path, _ = predictions_file
    out = tmp_path / "rep"
    rc = main(
        [
            "report",
            "-d",
            "conll2003:test",
            "-t",
            f"sp2k={en_models[2000]}",
            "-t",
            f"sp8k={en_models[8000]}",
            "-p",
            str(path),
            "--out",
            str(out),
            "--resamples",
            "100",
            "--no-progress",
            "--sentence",
            "3",
        ]
    )
    assert rc == 0
    assert "index.md" in capsys.readouterr().out
    t4 = (out / "table4.md").read_text()
    assert "| sp2k |" in t4 and "| sp8k |" in t4
    ex = (out / "examples.md").read_text()
    assert "sentence 3" in ex and " · " in ex and "| fake |" in ex  # the model's column
    assert "| gold |" in ex
    for fig in ("additional_segmentation", "error_by_pieces", "by_entity_type"):
        assert (out / "figures" / f"{fig}.png").stat().st_size > 1000
        assert (out / "figures" / f"{fig}.svg").exists()
    corr = json.loads((out / "correlation.json").read_text())
    assert {c["tokenizer"] for c in corr} == {"sp2k", "sp8k"}


def test_segment_examples_and_parity_commands(en_models, tmp_path, capsys):
    seg_out = tmp_path / "seg.parquet"
    assert (
        main(["segment", "-d", "conll2003:dev", "-t", str(en_models[2000]), "--out", str(seg_out), "--no-progress"])
        == 0
    )
    from tokstudy.analysis.table import SegmentationTable

    t = SegmentationTable.from_parquet(seg_out)
    assert len(t) == 51362 and t.datasets == ("conll2003:dev",)
    capsys.readouterr()
    assert main(["examples", "-d", "conll2003:test", "-t", str(en_models[2000]), "--auto", "2", "--no-progress"]) == 0
    assert capsys.readouterr().out.count("**conll2003:test, sentence") == 2
    corpus_path("xquad_parallel")
    assert (
        main(["parity", "-t", str(en_models[8000]), "--languages", "de,es", "--resamples", "50", "--no-progress"]) == 0
    )
    text = capsys.readouterr().out
    assert "| de |" in text and "| en | 1.000" in text


def test_bad_inputs_give_clear_errors(tmp_path, capsys):
    assert main(["stats", "-d", "conll2003:test", "-t", str(tmp_path / "missing.model"), "--no-progress"]) == 1
    assert "missing.model: tokenizer not found" in capsys.readouterr().err
    bad_model = tmp_path / "broken.model"
    bad_model.write_bytes(b"not a model")
    tiny = tmp_path / "tiny.conll"
    tiny.write_text("x O\n", encoding="utf-8")
    assert main(["stats", "-d", str(tiny), "-t", str(bad_model), "--no-progress"]) == 1
    assert "broken.model" in capsys.readouterr().err
    assert main(["stats", "-d", "nosuchset:test", "-t", str(bad_model), "--no-progress"]) == 1
    assert "neither a file nor a known dataset" in capsys.readouterr().err
