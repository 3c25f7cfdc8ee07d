"""The committed cpu report is what the report stage writes from its own tables."""

from __future__ import annotations

import shutil

from tests.conftest import PROJECT_ROOT
from tokstudy.study.report_sections import rerender_study_report

CPU_REPORT = PROJECT_ROOT / "examples" / "cpu_report"


def test_committed_cpu_report_is_current(tmp_path, monkeypatch):
    """Re-rendering the committed folder from its tables changes nothing: its verdicts follow today's rules."""
    folder = tmp_path / "cpu_report"
    shutil.copytree(CPU_REPORT, folder)
    monkeypatch.chdir(PROJECT_ROOT)
    rerender_study_report(folder, data_dir="../shared/data")
    assert (folder / "report.md").read_text(encoding="utf-8") == (CPU_REPORT / "report.md").read_text(encoding="utf-8")


def test_cpu_report_states_its_verdicts_with_counts_and_no_machine_path():
    md = (CPU_REPORT / "report.md").read_text(encoding="utf-8")
    assert (
        "Segmentation predicts errors beyond frequency, entity status and length: **mixed** "
        "(yes in 3 of 9, undecided in 2, no (opposite direction) in 1, no fit in 3)" in md
    )
    assert "snips-classification: accuracy rises with vocabulary size: **undecided** (undecided in 2 of 2)" in md
    for line in md.splitlines():
        if line.startswith("- ") and "**" in line:
            assert any(f"**{w}** (" in line for w in ("yes", "no (opposite direction)", "mixed", "undecided")), line
    assert "/work/" not in md and "/home/" not in md and "`/" not in md


def _summaries(rows: list[dict]):
    """The ``SegmentationSummary`` results a ``summary.json`` holds (its figures as written, not recounted)."""
    from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate, SegmentationSummary, SubsetSummary

    def subset(d: dict) -> SubsetSummary:
        return SubsetSummary(**{k: Estimate(**v) if isinstance(v, dict) else v for k, v in d.items()})

    return [
        SegmentationSummary(
            r["tokenizer"],
            *(subset(r[s]) for s in ("ne", "non_ne", "all")),
            r["boundary_policy"],
            BootstrapSettings(**r["bootstrap"]),
        )
        for r in rows
    ]


def test_committed_summary_tables_are_what_the_writer_writes_today(tmp_path):
    """summary.{md,csv,json} of the cpu report are today's writer's files of the figures in its summary.json:
    the Markdown's "word set" column (not "words"), the byte-fallback column (empty: not counted in that run)."""
    import json

    from tokstudy.report import build
    from tokstudy.report.result import write_table

    tables = CPU_REPORT / "tables"
    write_table(build.summary(_summaries(json.loads((tables / "summary.json").read_text(encoding="utf-8")))), tmp_path)
    for name in ("summary.md", "summary.csv", "summary.json"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (tables / name).read_text(encoding="utf-8"), name
    assert (tables / "summary.md").read_text(encoding="utf-8").startswith("| tokenizer | word set | fertility |")


def test_rerendered_report_names_a_symlinked_data_location_as_given(tmp_path, monkeypatch):
    """With ``../shared`` a symlink (a fresh clone beside a linked data folder), the report names
    ``../shared/data``, the path the user gave, not the link's target relative to the report's folder."""
    (tmp_path / "elsewhere" / "shared" / "data").mkdir(parents=True)
    checkout = tmp_path / "work" / "main"
    checkout.mkdir(parents=True)
    (tmp_path / "work" / "shared").symlink_to(tmp_path / "elsewhere" / "shared", target_is_directory=True)
    folder = checkout / "cpu_report"
    shutil.copytree(CPU_REPORT, folder)
    monkeypatch.chdir(checkout)
    rerender_study_report(folder, data_dir="../shared/data")
    md = (folder / "report.md").read_text(encoding="utf-8")
    assert "at the data location `../shared/data` (`--data-dir`" in md
    assert "elsewhere" not in md
