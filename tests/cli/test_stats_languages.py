"""``tokstudy stats`` over many languages: one row per (dataset, language), a figure, warnings naming languages."""

from __future__ import annotations

import csv
import json
import re

import pytest

from tests.conftest import corpus_path
from tokstudy.cli import main


@pytest.fixture(scope="module")
def masakhaner_languages() -> list[str]:
    from tokstudy.data.registry import dataset_info

    corpus_path("masakhaner2"), corpus_path("multiconer2022")
    return list(dataset_info("masakhaner2").languages)


def _rows(printed: str, tokenizer: str) -> list[list[str]]:
    """The per-language Markdown table of ``tokenizer``: the cells of each row."""
    block = printed.split(f"**{tokenizer}**, largest gap first")[1].split("\n\n")[1]
    return [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()[2:]]


def test_one_row_per_language_sorted_by_gap_with_csv_json_and_figure(en_models, masakhaner_languages, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(
        [
            "stats",
            "-d",
            "masakhaner2:*:test",
            "-d",
            "multiconer2022:ko:dev",
            "-t",
            f"sp2k={en_models[2000]}",
            "-t",
            f"sp8k={en_models[8000]}",
            "--resamples",
            "20",
            "--no-progress",
            "--json",
            str(out / "stats.json"),
            "--languages-csv",
            str(out / "languages.csv"),
            "--languages-figure",
            str(out / "languages"),
        ]
    )
    captured = capsys.readouterr()
    assert rc == 0
    assert "Table 4 per language" in captured.out
    languages = masakhaner_languages + ["ko"]
    for tokenizer in ("sp2k", "sp8k"):
        rows = _rows(captured.out, tokenizer)
        assert sorted(r[0] for r in rows) == sorted(languages)  # one row per language
        gaps = [float(r[5].split(" [")[0]) for r in rows]
        assert gaps == sorted(gaps, reverse=True)
        assert dict((r[0], r[1]) for r in rows)["ko"] == "Hangul"
    with open(out / "languages.csv", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 2 * len(languages)
    assert {"ne_pct", "non_ne_pct", "gap_pp", "gap_low", "gap_high", "fertility", "unknown_pct", "script"} <= set(
        table[0]
    )
    assert len(json.loads((out / "stats.json").read_text())["languages"]) == 2 * len(languages)
    for ext in ("png", "svg"):
        assert (out / f"languages.{ext}").stat().st_size > 10_000
    assert f"wrote {out / 'languages.png'}, {out / 'languages.svg'}" in captured.out


def test_the_unknown_piece_warning_is_one_line_per_tokenizer_naming_the_languages(en_models, capsys):
    rc = main(
        [
            "stats",
            "-d",
            "masakhaner2:yor:test",
            "-d",
            "multiconer2022:ko:dev",
            "-d",
            "multiconer2022:en:dev",
            "-t",
            f"sp2k={en_models[2000]}",
            "--resamples",
            "0",
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0
    lines = [line for line in err.splitlines() if "unknown pieces" in line]
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("tokstudy: warning: tokenizer 'sp2k'") and "of 3 languages" in line
    named = re.findall(r"(?:: |; )(\w+) [\d.]+ %", line)
    assert "ko" in named and "en" not in named
    assert "Hangul" in line


def test_one_dataset_keeps_table4_alone_and_says_why_there_is_no_figure(en_models, tmp_path, capsys):
    corpus_path("multiconer2022")
    rc = main(
        [
            "stats",
            "-d",
            "multiconer2022:ko:dev",
            "-t",
            f"sp2k={en_models[2000]}",
            "--resamples",
            "0",
            "--no-progress",
            "--languages-figure",
            str(tmp_path / "languages"),
        ]
    )
    captured = capsys.readouterr()
    assert rc == 0
    assert "Table 4 per language" not in captured.out
    assert "no per-language table (--languages-figure): one dataset only" in captured.out
    assert not (tmp_path / "languages.png").exists()
    # the dataset's own warning, as before
    assert "dataset 'multiconer2022:dev'" in captured.err and "HANGUL" in captured.err


def test_help_names_the_per_language_outputs(capsys):
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--languages-csv" in text and "--languages-figure" in text and "coloured by script" in text
