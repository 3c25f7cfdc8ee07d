"""``tokstudy corpus-stats``: help, JSON/CSV outputs, registry names, and the same figures from both engines."""

from __future__ import annotations

import csv
import gzip
import itertools
import json

import pytest

from tests.conftest import corpus_path
from tokstudy.cli import main
from tokstudy.data.rawtext import iter_sentences


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    raw = corpus_path("raw_text")
    d = tmp_path_factory.mktemp("cs_corpus")
    (d / "en.txt").write_text(
        "\n".join(itertools.islice(iter_sentences(raw / "en.txt.gz"), 800)) + "\n", encoding="utf-8"
    )
    with gzip.open(d / "ru.txt.gz", "wt", encoding="utf-8") as fh:
        fh.write("\n".join(itertools.islice(iter_sentences(raw / "ru.txt.gz"), 300)) + "\n")
    return d


def test_help_names_engines_and_outputs(capsys):
    with pytest.raises(SystemExit):
        main(["corpus-stats", "--help"])
    out = capsys.readouterr().out
    for option in ("--engine", "--scheduler", "--corpus", "--json", "--csv", "--partitions", "raw_text_large"):
        assert option in out


def test_local_and_dask_write_the_same_csv(en_models, small_corpus, tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    common = [
        "corpus-stats",
        "-t",
        f"sp2k={en_models[2000]}",
        "--corpus",
        str(small_corpus),
        "--n-resamples",
        "50",
        "--no-progress",
    ]
    assert (
        main([*common, "--processes", "1", "--json", str(tmp_path / "a.json"), "--csv", str(tmp_path / "a.csv")]) == 0
    )
    out = capsys.readouterr().out
    assert "| sp2k | en |" in out and "| sp2k | ru |" in out and "| sp2k | all |" in out
    assert (
        main([*common, "--engine", "dask", "--processes", "2", "--partitions", "4", "--csv", str(tmp_path / "b.csv")])
        == 0
    )
    assert "4 partitions, engine dask" in capsys.readouterr().out
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    with open(tmp_path / "a.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    fert = next(r for r in rows if r["language"] == "en" and r["figure"] == "fertility")
    assert float(fert["low"]) < float(fert["value"]) < float(fert["high"])
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["figures"]["sp2k"]["ru"]["n_lines"] == 300
    assert doc["figures"]["sp2k"]["en"]["fertility"]["value"] == pytest.approx(float(fert["value"]), rel=1e-12)


def test_registry_name_and_language_filter(en_models, capsys):
    corpus_path("raw_text")
    assert (
        main(
            [
                "corpus-stats",
                "-t",
                str(en_models[2000]),
                "--corpus",
                "raw_text",
                "--language",
                "zh",
                "--processes",
                "1",
                "--n-resamples",
                "0",
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "| zh |" in out and "| en |" not in out


def test_bad_inputs_are_one_line_errors(en_models, tmp_path, capsys):
    assert main(["corpus-stats", "-t", str(en_models[2000]), "--corpus", str(tmp_path / "none"), "--no-progress"]) == 1
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["corpus-stats", "-t", str(tmp_path / "x.model"), "--corpus", str(tmp_path), "--no-progress"]) == 1
    assert "tokenizer not found" in capsys.readouterr().err


def test_option_names_match_the_other_commands_and_old_ones_still_work(capsys):
    """--resamples and --drop-lone-boundary as in stats/correlate/report; the old spellings parse to the same
    values with a deprecation message; the help prints '%', not a literal '%%' (issue 24 item 10)."""
    from tokstudy.cli import build_parser

    parser = build_parser()
    base = ["corpus-stats", "-t", "x.model", "--corpus", "c"]
    new = parser.parse_args([*base, "--resamples", "7", "--drop-lone-boundary"])
    assert capsys.readouterr().err == ""
    old = parser.parse_args([*base, "--n-resamples", "7", "--no-lone-boundary"])
    err = capsys.readouterr().err
    assert "--n-resamples is deprecated" in err and "use --resamples" in err
    assert "--no-lone-boundary is deprecated" in err and "use --drop-lone-boundary" in err
    assert (new.n_resamples, new.no_lone_boundary) == (old.n_resamples, old.no_lone_boundary) == (7, True)
    defaults = parser.parse_args(base)
    assert (defaults.n_resamples, defaults.no_lone_boundary) == (200, False)
    with pytest.raises(SystemExit):
        parser.parse_args([*base, "--resamples", "-1"])  # checked as in the other commands
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["corpus-stats", "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out and "% continued words" in out
    assert "--resamples" in out and "--drop-lone-boundary" in out and "--n-resamples" not in out
