"""A report's tables written and read back in one module: the committed study folders read back and written again
give their own files, and ``tokstudy report``'s tables read back are the ones it wrote."""

from __future__ import annotations

import pytest

from tests.conftest import PROJECT_ROOT
from tests.report.test_report import setup  # noqa: F401 (the fixture)
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.report.result import Records, Table, read_result, read_study_result, write_result, write_table

STUDIES = [PROJECT_ROOT / "examples" / name for name in ("cpu_report", "multilingual_report")]


@pytest.mark.parametrize("folder", STUDIES, ids=lambda p: p.name)
def test_a_committed_study_reads_back_and_writes_its_own_files(folder, tmp_path):
    """Every file under ``tables/`` is what writing its table read back gives, byte for byte."""
    result = read_study_result(folder)
    written = write_result(result, tmp_path)
    committed = sorted(p.name for p in (folder / "tables").iterdir())
    assert sorted(p.name for p in written) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (folder / "tables" / name).read_bytes(), name
    assert result.study is not None and result.study.scores is not None
    assert result.errors is not None and result.errors.attribution_rows  # the attribution section's rows
    assert "figures/table4.png" in result.figures


def test_a_study_result_names_what_each_part_holds():
    result = read_study_result(STUDIES[1])
    names = [r["tokenizer"] for r in result.segmentation.table4.data]
    assert names == ["sp-unigram-8k", "sp-unigram-16k", "sp-unigram-32k"]
    assert set(result.segmentation.by) == {"entity_type", "language", "dataset"}
    assert result.errors.protocols is not None and result.errors.protocols.markdown.startswith("Pearson r")
    assert result.study.languages.data[0]["task"].startswith("masakhaner2-")
    assert result.examples.stem == "table3" and result.languages is None  # the study's languages are its own


def test_tokstudy_report_tables_read_back_as_written(setup, tmp_path):  # noqa: F811
    from tokstudy.report.writer import write_report

    _, t, aligned = setup
    write_report(t, tmp_path, predictions=[aligned], boot=BootstrapSettings(20), figures=False)
    back = read_result(tmp_path)
    assert back.segmentation.table4.markdown == (tmp_path / "table4.md").read_text(encoding="utf-8")[:-1]
    assert back.segmentation.intrinsic is not None and set(back.segmentation.by) == {
        "entity_type",
        "position",
        "language",
        "dataset",
    }
    assert back.errors.attribution_rows[0].model == "all-O"
    assert back.shredded is not None and back.languages is not None and back.study is None
    # the report re-assembled from its files shows what it showed when it was written; the summary's coverage
    # warnings are computed from the segmentation table, not kept in a file
    from dataclasses import replace

    from tokstudy.analysis.table.bytepieces import coverage_notes
    from tokstudy.report.assemble import report_sections

    back = replace(back, segmentation=replace(back.segmentation, coverage_notes=tuple(coverage_notes(t))))
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    for section in report_sections(back):
        assert f"## {section.title}\n\n{section.body.strip()}" in index, section.title


def test_a_table_is_written_as_the_files_it_has(tmp_path):
    t = Table("x", "| a |", Records(("a", "b"), [(1, "p,q")]), None)
    assert [p.name for p in write_table(t, tmp_path)] == ["x.md", "x.csv"] and t.files == ("x.md", "x.csv")
    assert (tmp_path / "x.csv").read_bytes() == b'a,b\r\n1,"p,q"\r\n'
    assert write_table(None, tmp_path) == []
