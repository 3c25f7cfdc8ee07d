"""Reports over analysis results: rows/Markdown/CSV/JSON (``tables``), each table as three files in one
schema (``files``), a report as Markdown + standalone HTML (``document``, rendered by ``html``), Table 3
(``table3``), the attribution section (``attribution``), figures (``figures``, matplotlib imported lazily)
and :func:`~tokstudy.report.writer.write_report` (``tokstudy report``). The study adds its own sections
(:mod:`tokstudy.study.report_sections`) and writes them through ``document``."""
