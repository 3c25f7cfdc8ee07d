"""The names of a report's tables: the stem of each table's files, shared by the code that makes a table and
the code that reads it back, so the two cannot drift apart.

A table ``NAME`` is written as ``NAME.md``, ``NAME.csv`` and ``NAME.json`` (each when it has that part,
:mod:`tokstudy.report.result`). The study's own tables are named after the fields of
:class:`~tokstudy.report.result.StudyTables`, which :func:`~tokstudy.report.result.read_result` reads by
those names.

>>> grouped("language")
'by_language'
"""

from __future__ import annotations

TABLE4 = "table4"
SUMMARY = "summary"
INTRINSIC = "intrinsic"
CORRELATION = "correlation"
ERROR_BY_PIECES = "error_by_pieces"
ATTRIBUTION = "attribution"
R_PROTOCOLS = "r_protocols"
#: Table 3 of ``tokstudy report`` (Markdown, CSV and JSON)
EXAMPLES = "examples"
#: Table 3 of a study (Markdown, one part per task)
TABLE3 = "table3"
PARITY = "parity"
REPAIRS = "repairs"
SHREDDED = "shredded"
MORPH = "morph"
PIECES = "pieces"
#: Table 4 per language of ``tokstudy report``; a study's ``languages`` table (per task, against F1) has the
#: same stem, in its own tables folder
LANGUAGES = "languages"
CROSS_LANGUAGE = "cross_language"
VOCABULARY_GAIN = "vocabulary_gain"
SCORES = "scores"
CONTROL = "control"
COST = "cost"
TASK_DATA = "task_data"
TASK_TEXT = "task_text"


def grouped(grouping: str) -> str:
    """The stem of a breakdown's table: ``by_<grouping>``."""
    return f"by_{grouping}"
