"""BENCHMARKS.md stays a current-state page: generated from the results files, short, every figure from a dated run.

And every benchmark prints the date, machine and load of the run it measures, never a fixed line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import assemble  # noqa: E402 (a script module of benchmarks/)
import runinfo  # noqa: E402

AREAS = {
    "Data readers",
    "Tokenizers",
    "Analysis and statistics",
    "CLI start-up",
    "Corpus statistics",
    "Pre-training data (`pretrain prepare`)",
    "Pre-training on CPU",
    "Pre-training on GPU",
    "Fine-tuning",
    "Study",
    "Analysis app",
    "Test suite",
}
#: Benchmarks that do not call runinfo yet, with why; the test fails once one does, so the entry goes.
NOT_YET: dict[str, str] = {}
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _all_blocks() -> list[assemble.Current]:
    return [b for path in assemble.results_files() for b in assemble.blocks(path)]


def test_the_page_is_what_the_results_files_give():
    page = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert page == assemble.render(), "BENCHMARKS.md is out of date: run python benchmarks/assemble.py"


def test_the_page_reads_in_five_minutes():
    lines = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8").count("\n")
    assert lines < 300, f"BENCHMARKS.md has {lines} lines; history belongs in benchmarks/results/"


def test_every_area_has_one_current_table_with_date_machine_and_command():
    found = _all_blocks()
    assert {b.title for b in found} == AREAS
    assert len(found) == len(AREAS)
    for b in found:
        header = next(row for row in b.body.splitlines() if row.startswith("|"))
        for column in ("date", "machine", "command"):
            assert column in header, f"{b.source.name}, {b.title}: no {column!r} column in {header!r}"


def test_every_current_figure_is_in_its_dated_history():
    # the current table repeats figures of the runs recorded below it; it never holds one of its own
    for path in assemble.results_files():
        history = assemble.BLOCK.sub("", path.read_text(encoding="utf-8"))
        for b in assemble.blocks(path):
            missing = sorted({n for n in NUMBER.findall(b.body) if n not in history})
            assert not missing, f"{path.name}, {b.title}: {missing} appear in no dated run of the file"


def test_gpu_figures_are_kept_as_measured():
    gpu = next(b for b in _all_blocks() if b.title == "Pre-training on GPU").body
    for figure in ("639,237", "37.1 %", "600,523", "35.5 %", "557,931", "539,625", "3.06x", "699,117", "611,175"):
        assert figure in gpu


def test_no_remarks_about_who_measured():
    page = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert not re.search(r"\b(the lead|helpers?|by the session)\b", page, flags=re.I)


def test_runinfo_names_the_date_machine_and_load_of_this_run():
    info = runinfo.collect()
    line = info.line()
    assert info.date[:10] in line and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", info.date)
    assert f"{info.cores} cores" in line and "GiB RAM" in line and "load average" in line
    assert info.python in line
    assert "load average" in runinfo.load_line()


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py")))
def test_every_benchmark_prints_its_own_run(script):
    text = (ROOT / "benchmarks" / script).read_text(encoding="utf-8")
    assert not re.search(r"Date 20\d\d-", text), f"{script} prints a fixed date"
    assert "shared with other jobs while measured" not in text, f"{script} prints a fixed remark about load"
    calls = "runinfo.describe(" in text
    if script in NOT_YET:
        assert not calls, f"{script} calls runinfo now: drop it from NOT_YET"
    else:
        assert calls, f"{script} does not print runinfo.describe() (date, machine, load of its run)"
