"""The tables' names are one set of constants, used by the code that makes a table and the code that reads it."""

from __future__ import annotations

from dataclasses import fields

from tokstudy.report import assemble, build, names
from tokstudy.report.result import StudyTables, Table, read_result, write_table


def test_every_study_table_is_named_by_a_constant():
    constants = {v for k, v in vars(names).items() if k.isupper()}
    assert {f.name for f in fields(StudyTables)} <= constants


def test_built_tables_carry_the_shared_names():
    assert build.table4([]).stem == names.TABLE4
    assert build.summary([]).stem == names.SUMMARY
    assert build.grouped("language", []).stem == names.grouped("language") == "by_language"
    errors = build.errors([])
    assert (errors.correlation.stem, errors.error_by_pieces.stem) == (names.CORRELATION, names.ERROR_BY_PIECES)


def test_a_table_written_under_a_constant_is_read_back_in_its_place(tmp_path):
    write_table(Table(names.TABLE4, "| t4 |", None, []), tmp_path)
    write_table(Table(names.PARITY, "| p |"), tmp_path)
    write_table(Table(names.TABLE3, "### t"), tmp_path)
    result = read_result(tmp_path, study=True)
    assert result.parity.markdown == "| p |" and result.examples.markdown == "### t"


def test_the_languages_figure_is_shown_from_its_constant(monkeypatch):
    """The section links the figure the constant names (one spelling of the path)."""
    monkeypatch.setattr(assemble, "LANGUAGES_FIGURE", "figures/elsewhere.png")
    section = assemble._languages_section(Table(names.LANGUAGES, "| l |"), ["figures/elsewhere.png"])
    assert "![Gap per language](figures/elsewhere.png)" in section.body
