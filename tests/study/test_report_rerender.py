"""The committed cpu report is what the report stage writes from its own tables today (issue 24 item 6)."""

from __future__ import annotations

import shutil

from tests.conftest import PROJECT_ROOT
from tokstudy.study.report import rerender_study_report

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
        "(yes in 5 of 9, undecided in 1, no fit in 3)" in md
    )
    assert "snips-classification: accuracy rises with vocabulary size: **undecided** (undecided in 2 of 2)" in md
    for line in md.splitlines():
        if line.startswith("- ") and "**" in line:
            assert any(f"**{w}** (" in line for w in ("yes", "no", "mixed", "undecided")), line
    assert "/work/" not in md and "/home/" not in md and "`/" not in md
